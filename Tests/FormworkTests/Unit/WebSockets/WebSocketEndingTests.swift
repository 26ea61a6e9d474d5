import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a WebSocket ends when the app closes or cancels it at an awkward moment (the reader
/// stalled, a reconnection pending, a connection being opened): every waiting call returns.
@Suite("WebSocket endings over a stub transport")
struct WebSocketEndingTests {
    struct Feed: WebSocketFormable {
        var url = "ws://127.0.0.1:9/ws/feed"
    }

    func session(_ transport: StubWebSocketTransport) -> Session {
        var configuration = Session.Configuration()
        configuration.webSocketTransport = transport
        return Session(configuration: configuration)
    }

    func connection(_ transport: StubWebSocketTransport, _ index: Int) async throws -> StubWebSocketConnection
    {
        await eventually("connection \(index + 1) opened") { transport.connections.count > index }
        let connections = transport.connections
        return try #require(index < connections.count ? connections[index] : nil)
    }

    @Test("Closing while the reader stalls at the buffer limit reads the server's answer and ends")
    func closeWhileReaderStalls() async throws {
        let messages = (0..<50).map { WebSocketMessage.text(String(format: "%04d", $0)) }
        let transport = StubWebSocketTransport(autoMessages: messages)
        let socket = session(transport).webSocket(Feed(), options: .init(bufferLimit: 40))
        var iterator = socket.messages().makeAsyncIterator()
        #expect(try await iterator.next() == .text("0000"))
        await eventually("the buffer filled") { socket.heldByteCount >= 36 }
        let closing = Task { await socket.close(.goingAway, reason: "leaving") }
        let ended = await eventually("the socket closed") { socket.state.isFinal }
        guard ended else { return }
        await closing.value
        guard case .closed(let close) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        #expect(close == WebSocketClose(code: .goingAway, reason: "leaving"))
        #expect(try await connection(transport, 0).closes.map(\.code) == [.goingAway])
    }

    @Test("Closing while a reconnection waits ends the socket at once; a waiting send is refused")
    func closeWhileWaitingToReconnect() async throws {
        let transport = StubWebSocketTransport()
        let socket = session(transport).webSocket(
            Feed(), options: .init(reconnection: WebSocketReconnection(initialDelay: 3600, jitter: 0)))
        let reader = Task {
            var count = 0
            for try await _ in socket.messages() { count += 1 }
            return count
        }
        try await connection(transport, 0).fail(StubWebSocketTransport.lost)
        await eventually("the socket waits to reconnect") {
            if case .reconnecting = socket.state { return true }
            return false
        }
        let sending = Task { try await socket.send(.text("while down")) }
        await socket.close()
        guard case .closed(nil) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        let error = await #expect(throws: NetworkError.self) { try await sending.value }
        #expect(error?.reason == .webSocketClosed)
        #expect(try await reader.value == 0)
        #expect(transport.connections.count == 1)
    }

    @Test("Cancelling while a connection opens ends the socket; the late connection is dropped")
    func cancelWhileConnecting() async throws {
        let transport = StubWebSocketTransport()
        transport.holdConnects()
        let socket = session(transport).webSocket(Feed())
        let reader = Task {
            for try await _ in socket.messages() {}
        }
        await eventually("the socket connects") {
            if case .connecting = socket.state { return true }
            return false
        }
        let sending = Task { try await socket.send(.text("early")) }
        socket.cancel()
        let readError = await #expect(throws: NetworkError.self) { try await reader.value }
        #expect(readError?.isCancelled == true)
        await #expect(throws: NetworkError.self) { try await sending.value }
        transport.releaseConnects()
        let late = try await connection(transport, 0)
        await eventually("the late connection is dropped") { late.isCancelled }
        guard case .closed(nil) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
    }
}
