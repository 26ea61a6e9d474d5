import Foundation

/// A WebSocket: messages both ways over one connection, opened through a ``Session`` (what
/// ``Session/webSocket(_:options:)`` returns).
///
/// ```swift
/// let socket = session.webSocket(ChatForm(room: "lobby"))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages() {
///     if case .text(let text) = message { print(text) }
/// }
/// ```
///
/// The socket connects when it is first read, sent on, pinged or hooked. Each connection runs the
/// session's adapters and authenticator (a `401` to the handshake has the authenticator refresh
/// the credential and the handshake sent again), so a reconnection carries the current token.
///
/// **Reading.** Read it one way, with one reader at a time: ``messages()`` or ``updates()`` (the
/// messages with the socket's changes of state). The sequence ends when the socket is closed, by
/// either side, and throws the ``NetworkError`` that ended it otherwise. Leaving the loop, or
/// cancelling the reading `Task`, cancels the socket.
///
/// **Memory and back-pressure.** Messages the reader has not taken yet are held up to
/// ``bufferLimit`` bytes; past that the socket receives nothing more until the reader catches up,
/// so the server is slowed down by TCP's flow control and nothing is lost. At most ``bufferLimit``
/// plus one message (up to ``maximumMessageSize``) is held.
///
/// **Sending while down.** ``send(_:)`` and ``ping()`` wait while the socket is connecting or
/// waiting to reconnect, and go out on the next open connection; when the socket closes or fails
/// instead, they throw ``NetworkError/Reason/webSocketClosed``. Nothing is queued inside the
/// socket: each waiting call holds its own message, so nothing is lost without an error.
/// A `send` that returned was handed to the connection; a connection that drops right after
/// may not have delivered it.
public final class WebSocket: Sendable {
    /// Opens connection `attempt` (the session: adapters, authentication, the transport).
    typealias Connector = @Sendable (_ attempt: Int) async throws -> any WebSocketConnection

    private struct Core {
        var machine: WebSocketStateMachine
        var connection: (any WebSocketConnection)?
        var current = WebSocketState.idle
        var observers: [@Sendable (WebSocketState) -> Void] = []
        var openWaiters: [Int: CheckedContinuation<any WebSocketConnection, any Error>] = [:]
        var finalWaiters: [CheckedContinuation<Void, Never>] = []
        var nextWaiter = 0
        var driver: Task<Void, Never>?
    }

    /// The default ``bufferLimit``: 4 MiB.
    public static let defaultBufferLimit = 4 << 20
    /// The default ``maximumMessageSize``: 16 MiB.
    public static let defaultMaximumMessageSize = 16 << 20

    /// The largest message the socket accepts, in bytes: a larger one fails the socket with
    /// ``NetworkError/Reason/webSocketMessageTooBig`` (the connection is closed with 1009).
    public let maximumMessageSize: Int
    /// The most message bytes held for a reader that falls behind before the socket stops
    /// receiving.
    public var bufferLimit: Int { buffer.limit }
    /// Whether and when the socket connects again (see ``WebSocketReconnection``).
    public let reconnection: WebSocketReconnection

    private let connector: Connector
    private let buffer: WebSocketBuffer
    private let core: Protected<Core>

    init(options: Options, connector: @escaping Connector) {
        maximumMessageSize = max(options.maximumMessageSize, 1)
        reconnection = options.reconnection
        buffer = WebSocketBuffer(limit: options.bufferLimit)
        self.connector = connector
        core = Protected(Core(machine: WebSocketStateMachine(policy: options.reconnection)))
    }

    /// The socket's state now.
    public var state: WebSocketState { core.withLock { $0.current } }

    /// The subprotocol the server chose for the open connection, or `nil`.
    public var subprotocol: String? {
        guard case .open(let subprotocol) = state else { return nil }
        return subprotocol
    }

    // MARK: Reading

    /// The messages, in order.
    /// - Returns: The messages; the sequence ends when the socket is closed and throws the
    ///   ``NetworkError`` that ended it otherwise.
    public func messages() -> WebSocketSequence<WebSocketMessage> {
        WebSocketSequence(socket: self) { item in
            guard case .message(let message) = item else { return nil }
            return message
        }
    }

    /// The messages together with the socket's changes of state, in order: `state(.connecting)`,
    /// `state(.open)`, the messages, then `state(.reconnecting(after:))` and so on, and the final
    /// `state(.closed)` or `state(.failed)` last of all.
    /// - Returns: The updates; the sequence ends after the final state (and throws the
    ///   ``NetworkError`` after `failed`).
    public func updates() -> WebSocketSequence<WebSocketUpdate> {
        WebSocketSequence(socket: self) { item in
            switch item {
            case .message(let message): .message(message)
            case .state(let state): .state(state)
            }
        }
    }

    /// Message bytes waiting for the reader.
    var heldByteCount: Int { buffer.byteCount }

    /// The reader's next item.
    func next() async -> WebSocketBuffer.Next {
        await buffer.next()
    }

    // MARK: Sending

    /// Sends a message on the open connection, waiting first while the socket connects.
    /// - Parameter message: The message.
    /// - Throws: ``NetworkError``: ``NetworkError/Reason/webSocketClosed`` when the socket is
    ///   closed or failed (or ends while waiting), the connection's failure, or a cancellation.
    public func send(_ message: WebSocketMessage) async throws {
        let connection = try await openConnection()
        do {
            try await connection.send(message)
        } catch {
            throw Self.connectionError(error)
        }
    }

    /// Sends a ping and measures its round trip, waiting first while the socket connects.
    /// - Returns: The seconds from sending the ping to receiving its pong.
    /// - Throws: ``NetworkError``, as ``send(_:)`` does.
    public func ping() async throws -> TimeInterval {
        let connection = try await openConnection()
        let start = ProcessInfo.processInfo.systemUptime
        do {
            try await connection.sendPing()
        } catch {
            throw Self.connectionError(error)
        }
        return ProcessInfo.processInfo.systemUptime - start
    }

    // MARK: Closing

    /// Closes the socket: sends a close frame and waits for the server's answer (the socket's
    /// state is then `closed` with the server's code and reason). The socket does not reconnect.
    /// When no connection is open, the socket is closed at once.
    /// - Parameters:
    ///   - code: The close code (default 1000, done).
    ///   - reason: The reason, short (at most 123 bytes of UTF-8 are sent).
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let (action, connection) = core.withLock { ($0.machine.closeRequested(), $0.connection) }
        switch action {
        case .sendClose:
            // A connection waiting for the reader to make room would never read the answer.
            buffer.stopWaitingForRoom()
            if let connection {
                await connection.close(WebSocketClose(code: code, reason: Self.truncated(reason)))
            }
        case .finish(let final):
            connection?.cancel()
            finish(final, error: nil)
        case .none:
            break
        }
        await waitUntilFinal()
    }

    /// Cancels the socket at once: its connection is dropped without a close handshake, the
    /// reader's loop throws a cancellation, and it does not reconnect.
    public func cancel() {
        let (action, connection, driver) = core.withLock { core in
            (core.machine.cancelled(), core.connection, core.driver)
        }
        buffer.abandon()
        connection?.cancel()
        driver?.cancel()
        if case .finish(let final) = action {
            finish(final, error: NetworkError.cancelled(request: nil))
        }
    }

    // MARK: Observing

    /// Adds an observer of the socket's changes of state (told on the thread where they happen,
    /// outside any lock), and starts the socket. It is told the current state at once.
    func observe(_ observer: @escaping @Sendable (WebSocketState) -> Void) {
        let current = core.withLock { core in
            core.observers.append(observer)
            return core.current
        }
        observer(current)
        start()
    }

    /// Starts the socket if nothing did yet.
    func start() {
        let action = core.withLock { core -> WebSocketStateMachine.Action in
            let action = core.machine.start()
            guard case .connect = action else { return action }
            core.driver = Task { [self] in await self.run(from: action) }
            return action
        }
        _ = action
    }

    // MARK: The connections

    /// Performs the machine's actions until the socket ends.
    private func run(from first: WebSocketStateMachine.Action) async {
        var action = first
        while true {
            switch action {
            case .connect(let attempt):
                action = await connect(attempt: attempt)
            case .wait(let seconds, let attempt):
                post(.reconnecting(after: seconds))
                await sleep(seconds: seconds)
                action = core.withLock { $0.machine.waited(attempt: attempt) }
            case .finish(let final):
                if case .failed(let error) = final {
                    finish(final, error: error)
                } else {
                    finish(final, error: nil)
                }
                return
            case .none:
                return
            }
        }
    }

    /// Opens connection `attempt` and reads it until it ends.
    private func connect(attempt: Int) async -> WebSocketStateMachine.Action {
        post(.connecting)
        let connection: any WebSocketConnection
        do {
            connection = try await connector(attempt)
        } catch {
            return ended(attempt: attempt, .notOpened(Self.connectionError(error)))
        }
        let waiters = core.withLock { core -> [CheckedContinuation<any WebSocketConnection, any Error>]? in
            guard core.machine.opened(attempt: attempt) else { return nil }
            core.connection = connection
            defer { core.openWaiters = [:] }
            return Array(core.openWaiters.values)
        }
        guard let waiters else {
            connection.cancel()
            return .none
        }
        post(.open(subprotocol: connection.subprotocol))
        for waiter in waiters { waiter.resume(returning: connection) }
        return await read(connection, attempt: attempt)
    }

    /// Receives messages while the reader has room, until the connection ends.
    private func read(_ connection: any WebSocketConnection, attempt: Int) async
        -> WebSocketStateMachine.Action
    {
        while true {
            // Back-pressure: nothing is received while the reader is a whole buffer behind. Once
            // the app closed the socket, the server's answer is read regardless (messages that
            // arrive before it and find no room are dropped: the app is done with them).
            await buffer.waitForRoom()
            let inbound: WebSocketInbound
            do {
                inbound = try await connection.receive()
            } catch {
                return ended(attempt: attempt, .failed(Self.connectionError(error)))
            }
            switch inbound {
            case .message(let message):
                guard message.byteCount <= maximumMessageSize else {
                    await connection.close(WebSocketClose(code: .messageTooBig))
                    connection.cancel()
                    return ended(
                        attempt: attempt, .failed(Self.tooBig(message.byteCount, limit: maximumMessageSize)))
                }
                let isClosing = core.withLock { $0.machine.phase == .closing(attempt: attempt) }
                if isClosing, !buffer.hasRoom() { continue }
                buffer.append(message)
            case .close(let close):
                return ended(attempt: attempt, .closedByServer(close))
            }
        }
    }

    /// Connection `attempt` ended: the machine decides what follows.
    private func ended(attempt: Int, _ ending: WebSocketStateMachine.Ending) -> WebSocketStateMachine.Action {
        let random = Double.random(in: 0...1)
        return core.withLock { core in
            core.connection = nil
            return core.machine.ended(attempt: attempt, ending, random: random)
        }
    }

    /// The socket ended in `final`: tell everyone, release the waiters, and stop the driver
    /// (a socket closed while it waits to reconnect, or while it connects, does not linger).
    private func finish(_ final: WebSocketState, error: NetworkError?) {
        post(final)
        buffer.finish(error)
        let (openWaiters, finalWaiters, driver) = core.withLock { core in
            defer { (core.openWaiters, core.finalWaiters, core.driver) = ([:], [], nil) }
            return (Array(core.openWaiters.values), core.finalWaiters, core.driver)
        }
        for waiter in openWaiters { waiter.resume(throwing: Self.closedError()) }
        for waiter in finalWaiters { waiter.resume() }
        driver?.cancel()
    }

    /// Tells the observers and the reader of a change of state.
    private func post(_ change: WebSocketState) {
        let observers = core.withLock { core in
            core.current = change
            return core.observers
        }
        for observer in observers { observer(change) }
        buffer.mark(change)
    }

    /// The open connection, once there is one (waits while the socket connects).
    private func openConnection() async throws -> any WebSocketConnection {
        start()
        let id = core.withLock { core in
            core.nextWaiter += 1
            return core.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<any WebSocketConnection, any Error>) in
                let ready = core.withLock { core -> Result<any WebSocketConnection, any Error>? in
                    if let connection = core.connection, core.machine.isOpen { return .success(connection) }
                    if core.current.isFinal || core.machine.phase == .finished {
                        return .failure(Self.closedError())
                    }
                    if Task.isCancelled { return .failure(NetworkError.cancelled(request: nil)) }
                    core.openWaiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = core.withLock { $0.openWaiters.removeValue(forKey: id) }
            waiter?.resume(throwing: NetworkError.cancelled(request: nil))
        }
    }

    /// Waits until the socket is closed or failed.
    private func waitUntilFinal() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = core.withLock { core -> Bool in
                if core.current.isFinal { return true }
                core.finalWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Errors

    static func closedError() -> NetworkError {
        NetworkError(
            .webSocket, failureReason: "The WebSocket is closed; the message was not sent.",
            details: .init(reason: .webSocketClosed))
    }

    static func tooBig(_ size: Int, limit: Int) -> NetworkError {
        NetworkError(
            .webSocket,
            failureReason:
                "The server sent a WebSocket message of \(size) bytes, over the limit of \(limit) bytes.",
            details: .init(reason: .webSocketMessageTooBig))
    }

    /// A connection's error as a ``NetworkError`` (another error is a transport failure).
    static func connectionError(_ error: any Error) -> NetworkError {
        if let error = error as? NetworkError { return error }
        if error is CancellationError { return .cancelled(request: nil) }
        return .transport(error, request: nil, response: nil, data: nil)
    }

    /// `reason` cut to the 123 bytes of UTF-8 a close frame has room for, at a character boundary.
    static func truncated(_ reason: String) -> String {
        guard reason.utf8.count > 123 else { return reason }
        var text = ""
        for character in reason {
            guard text.utf8.count + String(character).utf8.count <= 123 else { break }
            text.append(character)
        }
        return text
    }
}
