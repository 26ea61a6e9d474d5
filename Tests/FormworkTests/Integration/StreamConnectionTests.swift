import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Records what a stream's connection observers hear, in order.
private final class ConnectionLog: Sendable {
    private let states = Protected<[StreamConnectionState]>([])

    func record(_ state: StreamConnectionState) { states.withLock { $0.append(state) } }

    var names: [String] {
        states.current.map(\.name)
    }

    var waits: [TimeInterval] {
        states.current.compactMap { if case .reconnecting(let wait) = $0 { wait } else { nil } }
    }
}

@Suite("Stream connection observers against the demo server", .timeLimit(.minutes(3)))
struct StreamConnectionTests {
    let client = Client()

    @Test(
        "Observers hear each connection asked for, opened, lost, and reconnected after a drop, with the wait")
    func dropAndReconnect() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&total=4&retry=10&end=drop")
        let stream = client.stream(TestForm(url: url))
        let log = ConnectionLog()
        stream.sink.connections.add { log.record($0) }
        let events = try await collect(stream.events())
        #expect(events.map(\.id) == ids(1...4))
        // The third connection is answered 204: asked for, never open.
        #expect(
            log.names == [
                "connecting", "open", "lost", "reconnecting", "connecting", "open", "lost", "reconnecting",
                "connecting",
            ])
        #expect(log.waits.count == 2)
        #expect(log.waits.allSatisfy { $0 >= 0.010 && $0 <= 0.0125 })
    }

    @Test("A rejected event stream (wrong Content-Type) is asked for but never open, and not reconnected")
    func rejectedIsNotOpen() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&type=text/plain")
        let stream = client.stream(TestForm(url: url))
        let log = ConnectionLog()
        stream.sink.connections.add { log.record($0) }
        await #expect(throws: NetworkError.self) { _ = try await collect(stream.events()) }
        #expect(log.names == ["connecting"])
    }

    @Test("Lines are not reconnected: one connection, opened, then lost")
    func linesOpenOnce() async throws {
        let url = try await DemoServer.url("/ndjson?count=3&drop=1")
        let stream = client.stream(TestForm(url: url))
        let log = ConnectionLog()
        stream.sink.connections.add { log.record($0) }
        _ = try? await Array(stream.lines())
        #expect(log.names == ["connecting", "open", "lost"])
    }
}

extension Array {
    /// Collects an async sequence.
    init<S: AsyncSequence>(_ sequence: S) async throws where S.Element == Element {
        self = []
        for try await element in sequence { append(element) }
    }
}
