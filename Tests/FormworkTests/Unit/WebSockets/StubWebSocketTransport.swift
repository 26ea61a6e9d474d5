import Foundation

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``WebSocketTransport`` for the socket's own rules: each connect records its request and takes
/// the next scripted answer (open, or an error); each connection hands out what the test pushes.
final class StubWebSocketTransport: WebSocketTransport {
    private struct State {
        var requests: [URLRequest] = []
        var refusals: [NetworkError?] = []
        var connections: [StubWebSocketConnection] = []
        var holdConnect = false
        var connectWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Protected(State())
    /// Whether a new connection gets messages pushed by `autoMessages` at once.
    let autoMessages: [WebSocketMessage]

    init(refusals: [NetworkError?] = [], autoMessages: [WebSocketMessage] = []) {
        self.autoMessages = autoMessages
        state.withLock { $0.refusals = refusals }
    }

    var requests: [URLRequest] { state.withLock { $0.requests } }
    var connections: [StubWebSocketConnection] { state.withLock { $0.connections } }

    /// Connects wait until ``releaseConnects()``.
    func holdConnects() { state.withLock { $0.holdConnect = true } }

    func releaseConnects() {
        let waiters = state.withLock { state in
            state.holdConnect = false
            defer { state.connectWaiters = [] }
            return state.connectWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func connect(_ request: URLRequest, subprotocols: [String], maximumMessageSize: Int) async throws
        -> any WebSocketConnection
    {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { state -> Bool in
                guard state.holdConnect else { return true }
                state.connectWaiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        let refusal = state.withLock { state -> NetworkError? in
            state.requests.append(request)
            return state.refusals.isEmpty ? nil : state.refusals.removeFirst()
        }
        if let refusal { throw refusal }
        let connection = StubWebSocketConnection(subprotocol: subprotocols.first)
        for message in autoMessages { connection.push(.message(message)) }
        state.withLock { $0.connections.append(connection) }
        return connection
    }

    /// A refusal of the handshake with `status`.
    static func refusal(_ status: Int) -> NetworkError {
        let url = URL(string: "http://127.0.0.1/ws")
        return NetworkError(
            .webSocket, failureReason: "refused", details: .init(reason: .webSocketHandshakeRefused),
            response: url.flatMap {
                HTTPURLResponse(url: $0, statusCode: status, httpVersion: nil, headerFields: nil)
            })
    }

    /// A dropped connection.
    static let lost = NetworkError(
        .transport, failureReason: "lost", underlyingError: URLError(.networkConnectionLost))
}

/// One stub connection: `receive()` hands out what was pushed, in order, waiting when nothing is.
final class StubWebSocketConnection: WebSocketConnection {
    private struct State {
        var inbound: [Result<WebSocketInbound, NetworkError>] = []
        var waiter: CheckedContinuation<Result<WebSocketInbound, NetworkError>, Never>?
        var sent: [WebSocketMessage] = []
        var closes: [WebSocketClose] = []
        var receiveCalls = 0
        var cancelled = false
        var answersClose = true
    }

    let subprotocol: String?
    private let state = Protected(State())
    /// Called at each `receive()` (the test records what the socket holds then).
    let onReceive = Protected<(@Sendable () -> Void)?>(nil)

    init(subprotocol: String?) {
        self.subprotocol = subprotocol
    }

    var sent: [WebSocketMessage] { state.withLock { $0.sent } }
    var closes: [WebSocketClose] { state.withLock { $0.closes } }
    var receiveCalls: Int { state.withLock { $0.receiveCalls } }
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func push(_ item: WebSocketInbound) { deliver(.success(item)) }
    func fail(_ error: NetworkError) { deliver(.failure(error)) }

    private func deliver(_ item: Result<WebSocketInbound, NetworkError>) {
        let waiter = state.withLock {
            state -> CheckedContinuation<Result<WebSocketInbound, NetworkError>, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.inbound.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    func receive() async throws -> WebSocketInbound {
        onReceive.current?()
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<WebSocketInbound, NetworkError>, Never>) in
            let ready = state.withLock { state -> Result<WebSocketInbound, NetworkError>? in
                state.receiveCalls += 1
                if !state.inbound.isEmpty { return state.inbound.removeFirst() }
                if state.cancelled { return .failure(StubWebSocketTransport.lost) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }

    func send(_ message: WebSocketMessage) async throws {
        try state.withLock { state in
            if state.cancelled { throw StubWebSocketTransport.lost }
            state.sent.append(message)
        }
    }

    func sendPing() async throws {
        if isCancelled { throw StubWebSocketTransport.lost }
    }

    func close(_ close: WebSocketClose) async {
        state.withLock { $0.closes.append(close) }
        // The server answers with the same code.
        push(.close(close))
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
        fail(StubWebSocketTransport.lost)
    }
}
