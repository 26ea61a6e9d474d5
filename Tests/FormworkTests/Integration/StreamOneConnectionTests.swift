import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite(
    "Streams with one connection only (StreamReconnection.never) against the demo server",
    .timeLimit(.minutes(3)))
struct StreamOneConnectionTests {
    let client = Client()

    @Test("A clean end of the connection ends the sequence normally, with no second connection")
    func cleanEndEnds() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&total=6&retry=10")
        let events = try await collect(client.stream(TestForm(url: url), reconnection: .never).events())
        #expect(events.map(\.id) == ids(1...2))
        #expect(try await streamStats(key).connections == 1)
    }

    @Test("A dropped connection throws its transport error, with no second connection")
    func dropThrows() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&total=6&retry=10&end=drop")
        var received: [ServerSentEvent] = []
        await #expect {
            for try await event in client.stream(TestForm(url: url), reconnection: .never).events() {
                received.append(event)
            }
        } throws: { error in
            (error as? NetworkError)?.kind == .transport
        }
        #expect(received.map(\.id) == ids(1...2))
        #expect(try await streamStats(key).connections == 1)
    }

    @Test("The policy itself: never reconnects after any end, and the default still does")
    func policy() {
        let facts = EventStreamRule.Facts(retry: 10, quietConnections: 1)
        let drop = NetworkError(
            .transport, failureReason: "lost", underlyingError: URLError(.networkConnectionLost))
        #expect(StreamReconnection.never.reconnects == false)
        #expect(EventStreamRule.reconnectDelay(after: drop, facts: facts, policy: .never, random: 0) == nil)
        #expect(
            EventStreamRule.reconnectDelay(after: drop, facts: facts, policy: .default, random: 0) == 0.01)
    }
}
