import Foundation

/// Every rule of a ``WebSocket``'s connections: when to connect, when a connection that ended is
/// followed by another one and after how long, and how the socket ends. It takes events and
/// returns actions; it does no I/O, reads no clock and takes no lock (the socket holds it behind
/// its lock and performs the actions).
struct WebSocketStateMachine {
    enum Phase: Equatable {
        /// Nothing started the socket yet.
        case idle
        /// Connection `attempt` is being opened.
        case connecting(attempt: Int)
        /// Connection `attempt` is open.
        case open(attempt: Int)
        /// The app closed connection `attempt`; the server's answer is awaited.
        case closing(attempt: Int)
        /// Waiting before connection `attempt` (a reconnection).
        case waiting(attempt: Int)
        /// The socket ended.
        case finished
    }

    /// How a connection ended (or failed to open).
    enum Ending {
        /// The connection could not be opened.
        case notOpened(NetworkError)
        /// The server sent its close frame.
        case closedByServer(WebSocketClose)
        /// The open connection failed (dropped, protocol error, message too big).
        case failed(NetworkError)
    }

    enum Action {
        /// Open connection `attempt`.
        case connect(attempt: Int)
        /// Tell `reconnecting(after: seconds)`, wait, then report ``waited(attempt:)``.
        case wait(seconds: TimeInterval, attempt: Int)
        /// The socket ended in this state (`closed` or `failed`): tell it and release everything.
        case finish(WebSocketState)
        /// Nothing to do (an event of a connection the socket no longer uses).
        case none
    }

    /// What to do when the app closes the socket.
    enum CloseAction {
        /// Send a close frame on the open connection and await the server's answer.
        case sendClose
        /// No connection is open: the socket ends now, in this state.
        case finish(WebSocketState)
        /// The socket is already closing or ended.
        case none
    }

    let policy: WebSocketReconnection
    private(set) var phase = Phase.idle
    /// Connections in a row that failed to open (for the back-off and the limit).
    private(set) var failuresInRow = 0

    init(policy: WebSocketReconnection) {
        self.policy = policy
    }

    /// Whether a connection is open for sending.
    var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    /// The socket is started (read, sent on, or hooked): the first connection.
    mutating func start() -> Action {
        guard phase == .idle else { return .none }
        phase = .connecting(attempt: 1)
        return .connect(attempt: 1)
    }

    /// Connection `attempt` opened. Returns `false` when the socket no longer wants it (it was
    /// closed or cancelled meanwhile): drop it.
    mutating func opened(attempt: Int) -> Bool {
        guard phase == .connecting(attempt: attempt) else { return false }
        phase = .open(attempt: attempt)
        failuresInRow = 0
        return true
    }

    /// Connection `attempt` ended (or failed to open).
    /// - Parameter random: A number in 0...1 that picks the jitter.
    mutating func ended(attempt: Int, _ ending: Ending, random: Double) -> Action {
        switch phase {
        case .closing(attempt):
            phase = .finished
            if case .closedByServer(let close) = ending { return .finish(.closed(close)) }
            return .finish(.closed(nil))
        case .connecting(attempt), .open(attempt):
            break
        default:
            return .none
        }
        if case .connecting = phase { failuresInRow += 1 }
        let final: WebSocketState
        switch ending {
        case .closedByServer(let close):
            final = .closed(close)
            guard policy.reconnects, !policy.finalCloseCodes.contains(close.code) else {
                return finish(final)
            }
        case .notOpened(let error), .failed(let error):
            final = .failed(error)
            guard policy.reconnects, Self.isTransient(error) else { return finish(final) }
        }
        if let limit = policy.maximumAttempts, failuresInRow >= max(limit, 0) {
            return finish(final)
        }
        let delay = Self.delay(policy: policy, failuresInRow: failuresInRow, random: random)
        phase = .waiting(attempt: attempt + 1)
        return .wait(seconds: delay, attempt: attempt + 1)
    }

    /// The wait before connection `attempt` is over.
    mutating func waited(attempt: Int) -> Action {
        guard phase == .waiting(attempt: attempt) else { return .none }
        phase = .connecting(attempt: attempt)
        return .connect(attempt: attempt)
    }

    /// The app closes the socket.
    mutating func closeRequested() -> CloseAction {
        switch phase {
        case .open(let attempt):
            phase = .closing(attempt: attempt)
            return .sendClose
        case .idle, .connecting, .waiting:
            phase = .finished
            return .finish(.closed(nil))
        case .closing, .finished:
            return .none
        }
    }

    /// The socket is cancelled (its reader left, its task was cancelled, or ``WebSocket/cancel()``).
    mutating func cancelled() -> Action {
        guard phase != .finished else { return .none }
        phase = .finished
        return .finish(.closed(nil))
    }

    private mutating func finish(_ state: WebSocketState) -> Action {
        phase = .finished
        return .finish(state)
    }

    /// Whether a failure may pass with another connection: the network (unreachable, dropped,
    /// timed out) or a handshake refused with 408, 429 or a 5xx. Not a refusal with another
    /// status, a protocol error, a message over the limit or a platform without WebSockets.
    static func isTransient(_ error: NetworkError) -> Bool {
        if error.kind == .transport { return true }
        guard error.kind == .webSocket, error.reason == .webSocketHandshakeRefused,
            let status = error.statusCode
        else { return false }
        return status == 408 || status == 429 || (500..<600).contains(status)
    }

    /// The wait before the next connection: the initial delay doubled per connection in a row
    /// that failed to open, capped, plus up to `jitter` of itself.
    static func delay(policy: WebSocketReconnection, failuresInRow: Int, random: Double) -> TimeInterval {
        let doublings = Double(min(max(failuresInRow - 1, 0), 16))
        let base = min(max(policy.initialDelay, 0) * pow(2, doublings), max(policy.maximumDelay, 0))
        return base * (1 + max(policy.jitter, 0) * min(max(random, 0), 1))
    }
}
