import Formwork
import FormworkTestSupport
import FormworkWebSocketNIO
import FormworkWebSocketNIOCore
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets through a Formwork session over ``NIOWebSocketTransport``, against the demo server.
@Suite("WebSockets over SwiftNIO")
struct WebSocketNIOTests {
    struct Socket: WebSocketFormable {
        var url: String
        var subprotocols: [String] = []
    }

    static func url(_ path: String) async throws -> String {
        try await DemoServer.url(path).replacingOccurrences(of: "http://", with: "ws://")
    }

    func session(_ configure: (inout Session.Configuration) -> Void = { _ in }) -> Session {
        var configuration = Session.Configuration()
        configuration.webSocketTransport = NIOWebSocketTransport()
        configure(&configuration)
        return Session(configuration: configuration)
    }

    @Test("The client without TLS refuses a wss URL with an error that names the transport that opens it")
    func connectorWithoutTLS() async throws {
        let url = try #require(URL(string: "wss://127.0.0.1:1/ws/echo"))
        await #expect(throws: NetworkError.self) {
            _ = try await NIOWebSocketConnector(makeTLSHandler: nil).connect(
                URLRequest(url: url), subprotocols: [], maximumMessageSize: 1 << 20)
        }
        do {
            _ = try await NIOWebSocketConnector(makeTLSHandler: nil).connect(
                URLRequest(url: url), subprotocols: [], maximumMessageSize: 1 << 20)
        } catch let error as NetworkError {
            #expect(error.kind == .invalidURL)
            #expect(error.failureReason?.contains("NIOWebSocketTransport") == true)
        }
    }

    @Test("A message sent just before the server drops the connection is read before the loss, every time")
    func messageBeforeDropIsKept() async throws {
        let url = try #require(URL(string: try await Self.url("/ws/drop?after=1")))
        let connector = NIOWebSocketConnector(makeTLSHandler: nil)
        var lost = 0
        for _ in 0..<300 {
            let connection = try await connector.connect(
                URLRequest(url: url), subprotocols: [], maximumMessageSize: 1 << 20)
            do {
                let first = try await connection.receive()
                if first != .message(.text("0")) { lost += 1 }
            } catch {
                lost += 1
            }
            connection.cancel()
        }
        #expect(lost == 0)
    }

    @Test("Text and binary messages are echoed; the subprotocol offered is chosen")
    func echo() async throws {
        let socket = session().webSocket(
            Socket(url: try await Self.url("/ws/echo"), subprotocols: ["demo.v1"]))
        var iterator = socket.messages().makeAsyncIterator()
        try await socket.send(.text("héllo"))
        try await socket.send(.binary(Data([0, 1, 2, 255])))
        #expect(try await iterator.next() == .text("héllo"))
        #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
        #expect(socket.subprotocol == "demo.v1")
        let roundTrip = try await socket.ping()
        #expect(roundTrip >= 0)
        await socket.close(.normalClosure, reason: "bye")
        guard case .closed(let close) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        #expect(close == WebSocketClose(code: .normalClosure, reason: "bye"))
    }

    @Test("A 16 MiB message goes both ways whole")
    func bigMessage() async throws {
        let payload = Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let socket = session().webSocket(
            Socket(url: try await Self.url("/ws/echo")), options: .init(maximumMessageSize: 17 << 20))
        var iterator = socket.messages().makeAsyncIterator()
        try await socket.send(.binary(payload))
        let echoed = try await iterator.next()
        #expect(echoed == .binary(payload))
        await socket.close()
    }

    @Test("A message in several frames arrives joined")
    func fragmented() async throws {
        let socket = session().webSocket(Socket(url: try await Self.url("/ws/fragmented?parts=4")))
        var iterator = socket.messages().makeAsyncIterator()
        #expect(try await iterator.next() == .text("part0 part1 part2 part3"))
        socket.cancel()
    }

    @Test("The server's close code and reason end the sequence")
    func serverCloses() async throws {
        let socket = session().webSocket(Socket(url: try await Self.url("/ws/close?code=4001&reason=later")))
        for try await _ in socket.messages() {}
        guard case .closed(let close) = socket.state else {
            Issue.record("not closed: \(socket.state)")
            return
        }
        #expect(close == WebSocketClose(code: WebSocketCloseCode(rawValue: 4001), reason: "later"))
    }

    @Test("A refused handshake fails with its status and body")
    func refused() async throws {
        let socket = session().webSocket(Socket(url: try await Self.url("/ws/refuse?status=403")))
        let error = await #expect(throws: NetworkError.self) { for try await _ in socket.messages() {} }
        #expect(error?.reason == .webSocketHandshakeRefused)
        #expect(error?.statusCode == 403)
        #expect(error?.data.map { String(decoding: $0, as: UTF8.self).contains("WebSocket refused") } == true)
    }

    @Test("A message over the limit fails the socket")
    func tooBig() async throws {
        let socket = session().webSocket(
            Socket(url: try await Self.url("/ws/big?size=4096")), options: .init(maximumMessageSize: 1024))
        let error = await #expect(throws: NetworkError.self) { for try await _ in socket.messages() {} }
        #expect(error?.reason == .webSocketMessageTooBig)
    }

    @Test("A ping the server never answers fails when the socket is cancelled, not before")
    func unansweredPing() async throws {
        let socket = session().webSocket(Socket(url: try await Self.url("/ws/silent")))
        try await socket.send(.text("anyone?"))
        let ping = Task { try await socket.ping() }
        socket.cancel()
        await #expect(throws: NetworkError.self) { try await ping.value }
    }

    @Test("Cancelling the reading task cancels the socket")
    func cancelFromTask() async throws {
        let socket = session().webSocket(Socket(url: try await Self.url("/ws/push?count=1&close=0")))
        let reader = Task {
            for try await _ in socket.messages() {}
        }
        try await socket.send(.text("x"))  // waits until open
        reader.cancel()
        let error = await #expect(throws: NetworkError.self) { try await reader.value }
        #expect(error?.isCancelled == true)
    }

    struct Token: AuthenticationCredential {
        let value: String
        var requiresRefresh: Bool { false }
    }

    /// Refreshes through the demo server's `/auth/refresh` for a realm.
    struct RealmAuthenticator: Authenticator {
        let realm: String
        let refreshURL: URL

        func apply(_ credential: Token, to request: inout OutgoingRequest) {
            request.headers["Authorization"] = "Bearer \(credential.value)"
        }

        func refresh(_ credential: Token) async throws -> Token {
            var request = URLRequest(url: refreshURL)
            request.httpMethod = "POST"
            let (data, _) = try await URLSession.shared.data(for: request)
            struct Reply: Decodable { let token: String }
            return Token(value: try JSONDecoder().decode(Reply.self, from: data).token)
        }

        func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
            request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
        }
    }

    @Test("An abrupt drop is followed by a reconnection that carries a refreshed token")
    func dropThenReconnectWithRefreshedToken() async throws {
        let realm = "ws-\(UUID().uuidString.prefix(8))"
        let refreshURL = try #require(URL(string: try await DemoServer.url("/auth/refresh?realm=\(realm)")))
        let auth = AuthenticationInterceptor(
            authenticator: RealmAuthenticator(realm: realm, refreshURL: refreshURL),
            credential: Token(value: "\(realm)-0"))
        let socket = session { configuration in
            configuration.interceptors.adapters = [auth]
            configuration.interceptors.retriers = [auth]
        }
        .webSocket(
            Socket(url: try await Self.url("/ws/auth?realm=\(realm)&dropFirst=1")),
            options: .init(reconnection: WebSocketReconnection(initialDelay: 0.05, jitter: 0)))
        var texts: [String] = []
        var sawReconnecting = false
        // Ends at the first message after the reconnection, whatever came before it.
        reading: for try await update in socket.updates() {
            switch update {
            case .message(.text(let text)):
                texts.append(text)
                if sawReconnecting { break reading }
            case .state(.reconnecting): sawReconnecting = true
            case .state(.failed), .state(.closed): break reading
            default: break
            }
        }
        #expect(texts == ["\(realm)-0", "\(realm)-2"])
        #expect(sawReconnecting)
        #expect(await auth.refreshCount == 1)
    }

    @Test("A flood of 100,000 messages read by a reader that stalls arrives whole and in order")
    func floodWithStalledReader() async throws {
        let count = 100_000
        let socket = session().webSocket(
            Socket(url: try await Self.url("/ws/push?count=\(count)&size=64")),
            options: .init(bufferLimit: 256 << 10))
        var iterator = socket.messages().makeAsyncIterator()
        var received = 0
        var inOrder = true
        if case .text(let text) = try await iterator.next() {
            inOrder = text.hasPrefix("0.")
            received = 1
        }
        // The reader stalls until the server has pushed a good part of the flood (a signal, not
        // a time): the socket's buffer fills and the socket stops reading meanwhile.
        let statsURL = try #require(URL(string: try await DemoServer.url("/ws/stats?path=push")))
        var connections = 0
        while connections == 0 {
            let (data, _) = try await URLSession.shared.data(from: statsURL)
            struct Stats: Decodable { let connections: Int }
            connections = try JSONDecoder().decode(Stats.self, from: data).connections
        }
        while let message = try await iterator.next() {
            guard case .text(let text) = message, text.hasPrefix("\(received).") || text == String(received)
            else {
                inOrder = false
                break
            }
            received += 1
        }
        #expect(inOrder)
        #expect(received == count)
    }
}
