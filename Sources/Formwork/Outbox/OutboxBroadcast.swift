import Foundation

/// Hands each value to every current listener; values sent while nobody listens are kept (up to
/// a bound) for the first listener, so a result that arrives before the app subscribes is not lost.
final class OutboxBroadcast<Value: Sendable>: Sendable {
    private struct State {
        var listeners: [UUID: AsyncStream<Value>.Continuation] = [:]
        /// The listeners that take what nobody heard: while none is there, values are kept.
        var hearing: Set<UUID> = []
        var unheard: [Value] = []
        var isFinished = false
    }

    private let state = Protected(State())
    private let keepsUnheard: Int
    private let replaysLatest: Bool

    /// - Parameters:
    ///   - keepsUnheard: How many values sent with no listener to keep for the first one.
    ///   - replaysLatest: Whether a new listener first gets the latest value sent (a status),
    ///     instead of the unheard ones.
    init(keepsUnheard: Int, replaysLatest: Bool = false) {
        self.keepsUnheard = keepsUnheard
        self.replaysLatest = replaysLatest
    }

    /// A new listener's stream.
    /// - Parameter takesUnheard: Whether this listener takes the values kept for the first one
    ///   (a model that only shows the latest result leaves them to the app's own listener).
    func subscribe(takesUnheard: Bool = true) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let id = UUID()
        let (backlog, isFinished) = state.withLock { state -> ([Value], Bool) in
            guard !state.isFinished else { return (replaysLatest ? state.unheard : [], true) }
            state.listeners[id] = continuation
            guard takesUnheard || replaysLatest else { return ([], false) }
            state.hearing.insert(id)
            let backlog = state.unheard
            if !replaysLatest { state.unheard = [] }
            return (backlog, false)
        }
        for value in backlog { continuation.yield(value) }
        if isFinished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    state.listeners[id] = nil
                    state.hearing.remove(id)
                }
            }
        }
        return stream
    }

    /// Sends `value` to every listener, or keeps it when there is none.
    func send(_ value: Value) {
        let listeners = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            if replaysLatest {
                state.unheard = [value]
            } else if state.hearing.isEmpty {
                state.unheard.append(value)
                if state.unheard.count > keepsUnheard { state.unheard.removeFirst() }
            }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.yield(value) }
    }

    /// Ends every stream, now and for later listeners.
    func finish() {
        let listeners = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.isFinished = true
            defer {
                state.listeners = [:]
                state.hearing = []
            }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }
}
