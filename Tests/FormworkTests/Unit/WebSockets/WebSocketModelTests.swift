import Foundation
import Observation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``RequestModel`` bound to a WebSocket over a stub transport: the latest message, the
/// connection's states across a reconnection, and how the phase ends.
@Suite("WebSocket bound to a RequestModel", .timeLimit(.minutes(1)))
@MainActor
struct WebSocketModelTests {
    struct Feed: WebSocketFormable {
        var url = "ws://127.0.0.1:9/ws/feed"
    }

    func socket(_ transport: StubWebSocketTransport, reconnects: Bool = false) -> WebSocket {
        var configuration = Session.Configuration()
        configuration.webSocketTransport = transport
        let reconnection = reconnects ? WebSocketReconnection(initialDelay: 0, jitter: 0) : .never
        return Session(configuration: configuration).webSocket(
            Feed(), options: .init(reconnection: reconnection))
    }

    func connection(_ transport: StubWebSocketTransport, _ index: Int) async throws -> StubWebSocketConnection
    {
        await eventually("connection \(index + 1) opened") { transport.connections.count > index }
        let connections = transport.connections
        return try #require(index < connections.count ? connections[index] : nil)
    }

    @Test("The model shows the latest message and the connection across a drop, then succeeds at the close")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func latestMessageAndConnection() async throws {
        let transport = StubWebSocketTransport()
        let model = RequestModel<WebSocketMessage>()
        let changes = ModelChanges(model)
        socket(transport, reconnects: true).bind(to: model)
        #expect(model.phase.isLoading)
        let first = try await connection(transport, 0)
        first.push(.message(.text("one")))
        await waitUntil(model) { $0.value == .text("one") }
        first.fail(StubWebSocketTransport.lost)
        let second = try await connection(transport, 1)
        second.push(.message(.text("two")))
        second.push(.close(WebSocketClose(code: .normalClosure)))
        await waitUntil(model) { $0.connection == .closed }
        #expect(
            changes.connections.map(\.name) == [
                "connecting", "open", "lost", "reconnecting", "connecting", "open", "lost", "closed",
            ])
        #expect(model.value == .text("two"))
        #expect(model.phase.value == .text("two"))
        #expect(!model.canReload)
    }

    @Test("A refused socket fails the model with its message; cancel() cancels the socket")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func failureAndCancel() async throws {
        let refused = RequestModel<WebSocketMessage>()
        socket(StubWebSocketTransport(refusals: [StubWebSocketTransport.refusal(403)])).bind(to: refused)
        await waitUntil(refused) { !$0.phase.isLoading }
        #expect(refused.phase.error?.reason == .webSocketHandshakeRefused)
        #expect(refused.message != nil)

        let transport = StubWebSocketTransport()
        let model = RequestModel<WebSocketMessage>()
        let socket = socket(transport).bind(to: model)
        let connection = try await connection(transport, 0)
        model.cancel()
        await waitUntil(model) { $0.connection == .closed }
        guard case .idle = model.phase else {
            Issue.record("not idle: \(model.phase)")
            return
        }
        #expect(connection.isCancelled)
        guard case .closed(nil) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
    }
}
