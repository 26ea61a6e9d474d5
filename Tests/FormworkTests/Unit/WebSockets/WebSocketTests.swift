import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket's shared logic through a session, over a stub transport: reading, sending,
/// back-pressure, reconnection with adapters and authentication, closing and cancelling.
@Suite("WebSocket over a stub transport")
struct WebSocketTests {
    struct Feed: WebSocketFormable {
        var url = "ws://127.0.0.1:9/ws/feed"
        var subprotocols: [String] { ["feed.v1"] }
    }

    func session(
        _ transport: StubWebSocketTransport, configure: (inout Session.Configuration) -> Void = { _ in }
    )
        -> Session
    {
        var configuration = Session.Configuration()
        configuration.webSocketTransport = transport
        configure(&configuration)
        return Session(configuration: configuration)
    }

    func connection(_ transport: StubWebSocketTransport, _ index: Int) async throws -> StubWebSocketConnection
    {
        await eventually("connection \(index + 1) opened") { transport.connections.count > index }
        let connections = transport.connections
        return try #require(index < connections.count ? connections[index] : nil)
    }

    @Test("Messages arrive in order; the server's close ends the sequence and is the final state")
    func readsUntilServerClose() async throws {
        let transport = StubWebSocketTransport()
        let socket = session(transport).webSocket(Feed())
        let reader = Task {
            var received: [WebSocketMessage] = []
            for try await message in socket.messages() { received.append(message) }
            return received
        }
        let connection = try await connection(transport, 0)
        connection.push(.message(.text("a")))
        connection.push(.message(.binary(Data([1, 2]))))
        connection.push(.close(WebSocketClose(code: .normalClosure, reason: "done")))
        #expect(try await reader.value == [.text("a"), .binary(Data([1, 2]))])
        guard case .closed(let close) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        #expect(close == WebSocketClose(code: .normalClosure, reason: "done"))
        let request = try #require(transport.requests.first)
        #expect(request.url?.absoluteString == "ws://127.0.0.1:9/ws/feed")
        #expect(request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "feed.v1")
    }

    @Test("A send waits while the socket connects, then goes out on the open connection")
    func sendWaitsForOpen() async throws {
        let transport = StubWebSocketTransport()
        transport.holdConnects()
        let socket = session(transport).webSocket(Feed())
        let sending = Task { try await socket.send(.text("hello")) }
        await eventually("the socket connects") {
            if case .connecting = socket.state { return true }
            return false
        }
        #expect(transport.connections.isEmpty)
        transport.releaseConnects()
        try await sending.value
        let connection = try await connection(transport, 0)
        #expect(connection.sent == [.text("hello")])
        #expect(try await socket.ping() >= 0)
        await socket.close()
    }

    @Test("After close, a send is refused with webSocketClosed")
    func sendAfterClose() async throws {
        let transport = StubWebSocketTransport()
        let socket = session(transport).webSocket(Feed())
        try await socket.send(.text("one"))
        await socket.close(.goingAway, reason: "leaving")
        let connection = try await connection(transport, 0)
        #expect(connection.closes == [WebSocketClose(code: .goingAway, reason: "leaving")])
        guard case .closed(let close) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        #expect(close?.code == .goingAway)
        let error = await #expect(throws: NetworkError.self) { try await socket.send(.text("two")) }
        #expect(error?.reason == .webSocketClosed)
    }

    @Test("A reader that stalls stops the receiving at the buffer limit; every message arrives in order")
    func backPressure() async throws {
        let count = 200
        let messages = (0..<count).map { WebSocketMessage.text(String(format: "%04d", $0)) }
        let transport = StubWebSocketTransport(autoMessages: messages)
        let socket = session(transport).webSocket(Feed(), options: .init(bufferLimit: 40))
        let held = Protected(0)
        var iterator = socket.messages().makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first == .text("0000"))
        let connection = try await connection(transport, 0)
        connection.onReceive.withLock {
            $0 = { [socket] in held.withLock { $0 = max($0, socket.heldByteCount) } }
        }
        // The reader stalls: the socket receives until the buffer is full, then waits (the reader
        // may have taken its first message after that: one message less is held then).
        await eventually("the buffer filled") { socket.heldByteCount >= 36 }
        var received = [first]
        while received.count < count, let message = try await iterator.next() { received.append(message) }
        connection.push(.close(WebSocketClose(code: .normalClosure)))
        #expect(try await iterator.next() == nil)
        #expect(received == messages)
        #expect(held.current < 40, "receive() was called while the reader held a full buffer")
    }

    @Test("Each connection runs the adapters again; reconnection follows a drop")
    func reconnectsWithAdapters() async throws {
        let transport = StubWebSocketTransport()
        let counter = Protected(0)
        let socket = session(transport) { configuration in
            configuration.interceptors.adapters = [
                Adapter { request in
                    var request = request
                    let number = counter.withLock { count in
                        count += 1
                        return count
                    }
                    request.headers["Authorization"] = "Bearer \(number)"
                    return request
                }
            ]
        }
        .webSocket(Feed(), options: .init(reconnection: WebSocketReconnection(initialDelay: 0, jitter: 0)))
        let reader = Task {
            var updates: [String] = []
            for try await update in socket.updates() {
                switch update {
                case .message(.text(let text)): updates.append(text)
                case .state(.reconnecting): updates.append("reconnecting")
                case .state(.closed): updates.append("closed")
                default: break
                }
            }
            return updates
        }
        try await connection(transport, 0).push(.message(.text("first")))
        try await connection(transport, 0).fail(StubWebSocketTransport.lost)
        let second = try await connection(transport, 1)
        second.push(.message(.text("second")))
        second.push(.close(WebSocketClose(code: .normalClosure)))
        #expect(try await reader.value == ["first", "reconnecting", "second", "closed"])
        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer 1", "Bearer 2",
            ])
    }

    struct Token: AuthenticationCredential {
        let value: String
        var requiresRefresh: Bool { false }
    }

    struct TokenAuthenticator: Authenticator {
        func apply(_ credential: Token, to request: inout OutgoingRequest) {
            request.headers["Authorization"] = "Bearer \(credential.value)"
        }
        func refresh(_ credential: Token) async throws -> Token { Token(value: credential.value + "+") }
        func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
            request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
        }
    }

    @Test("A 401 to the handshake has the authenticator refresh the token; the handshake goes again")
    func refreshesOn401() async throws {
        let transport = StubWebSocketTransport(refusals: [StubWebSocketTransport.refusal(401)])
        let auth = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(), credential: Token(value: "t"))
        let socket = session(transport) { configuration in
            configuration.interceptors.adapters = [auth]
            configuration.interceptors.retriers = [auth]
        }
        .webSocket(Feed())
        try await socket.send(.text("hi"))
        #expect(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                "Bearer t", "Bearer t+",
            ])
        #expect(await auth.refreshCount == 1)
        socket.cancel()
    }

    @Test("A refused handshake fails the socket with its status")
    func refused() async throws {
        let transport = StubWebSocketTransport(refusals: [StubWebSocketTransport.refusal(403)])
        let socket = session(transport).webSocket(Feed(), options: .init(reconnection: .standard))
        let error = await #expect(throws: NetworkError.self) {
            for try await _ in socket.messages() {}
        }
        #expect(error?.reason == .webSocketHandshakeRefused)
        #expect(error?.statusCode == 403)
        guard case .failed = socket.state else {
            Issue.record("not failed: \(socket.state)")
            return
        }
    }

    @Test("A message over the limit fails the socket and closes the connection with 1009")
    func tooBig() async throws {
        let transport = StubWebSocketTransport(autoMessages: [.binary(Data(count: 11))])
        let socket = session(transport).webSocket(Feed(), options: .init(maximumMessageSize: 10))
        let error = await #expect(throws: NetworkError.self) {
            for try await _ in socket.messages() {}
        }
        #expect(error?.reason == .webSocketMessageTooBig)
        #expect(try await connection(transport, 0).closes.map(\.code) == [.messageTooBig])
    }

    @Test("Cancelling the reading task cancels the socket and its connection")
    func cancelFromTask() async throws {
        let transport = StubWebSocketTransport()
        let socket = session(transport).webSocket(Feed())
        let reader = Task {
            for try await _ in socket.messages() {}
        }
        let connection = try await connection(transport, 0)
        reader.cancel()
        let error = await #expect(throws: NetworkError.self) { try await reader.value }
        #expect(error?.isCancelled == true)
        #expect(connection.isCancelled)
        guard case .closed(nil) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
    }

    @Test("The handshake carries the session's and the form's headers; http URLs become ws")
    func handshakeRequest() throws {
        struct Form: WebSocketFormable {
            var url: String { "https://example.com/live?x=1" }
            var headers: HTTPHeaders { ["X-Form": "1"] }
        }
        var configuration = Session.Configuration()
        configuration.headers = ["X-Session": "2"]
        let request = try WebSocketHandshake.request(for: Form(), configuration: configuration)
        #expect(request.url?.absoluteString == "wss://example.com/live?x=1")
        #expect(request.value(forHTTPHeaderField: "X-Form") == "1")
        #expect(request.value(forHTTPHeaderField: "X-Session") == "2")
        #expect(request.httpMethod == "GET")
        #expect(throws: NetworkError.self) {
            try WebSocketHandshake.request(for: Feed(url: "ftp://example.com"), configuration: configuration)
        }
    }

    #if canImport(FoundationNetworking)
        @Test(
            "Over corelibs URLSession on Linux, a socket fails at once with an error naming the alternative")
        func unavailableOnLinux() async throws {
            let socket = Session().webSocket(Feed())
            let error = await #expect(throws: NetworkError.self) {
                for try await _ in socket.messages() {}
            }
            #expect(error?.kind == .webSocket)
            #expect(error?.reason == .webSocketsUnavailable)
            #expect(error?.failureReason.contains("webSocketTransport") == true)
            let sendError = await #expect(throws: NetworkError.self) { try await socket.send(.text("x")) }
            #expect(sendError?.reason == .webSocketClosed)
        }
    #endif
}

/// The `.load` and `.warn` hooks of a socket.
@Suite("WebSocket hooks")
@MainActor
struct WebSocketHookTests {
    @Test("load shows while the socket connects; warn shows the failure")
    func loadAndWarn() async throws {
        let transport = StubWebSocketTransport(refusals: [StubWebSocketTransport.refusal(403)])
        transport.holdConnects()
        var configuration = Session.Configuration()
        configuration.webSocketTransport = transport
        let control = Headless.Control()
        let alert = Headless.Alert()
        let socket = Session(configuration: configuration).webSocket(WebSocketTests.Feed())
            .load(control).warn(with: alert)
        await eventually("loading shows while connecting") { !control.isEnabled }
        transport.releaseConnects()
        await eventually("loading ends after the failure") { control.isEnabled }
        await eventually("the failure is shown") { !alert.presentedMessages.isEmpty }
        #expect(alert.presentedMessages.first?.hasPrefix(MessageCatalog.current.forbidden) == true)
        guard case .failed = socket.state else {
            Issue.record("not failed: \(socket.state)")
            return
        }
    }
}
