import Foundation

/// One network request in flight that identical requests share (coalescing): the task, and the
/// requests whose attempts take its events.
///
/// A request may join while the task has delivered nothing yet (no response head, redirect,
/// challenge or completion): from then on every subscriber sees every event, so no bytes ever
/// need replaying. The first event closes the flight to newcomers (they start a network request
/// of their own). A subscriber that leaves (cancelled, timed out, retrying) only stops taking
/// events; the task is cancelled only when the last one leaves.
final class Flight: Sendable {
    /// One caller's handle on the shared task, whose events it takes.
    typealias Subscriber = SharedExchangeTask

    private struct State {
        var subscribers: [Subscriber]
        /// The shared task: set once, by the leader, right after the flight is listed (see
        /// ``Coalescer/enter(_:as:leaderID:deliversAtCompletion:makeTask:)``).
        var task: (any TransportTask)?
        var isOpen = true
        /// Whether the flight is over: its task ended, or its last subscriber left.
        var isOver = false
    }

    /// What the flight is keyed by in its session's ``Coalescer``.
    let key: CoalescingKey
    /// The shared task; `nil` only while its leader is making it, before the leader's
    /// ``Coalescer/enter(_:as:leaderID:deliversAtCompletion:makeTask:)`` returns (a caller that
    /// joined meanwhile reads it only after the leader left: see `SharedExchangeTask`).
    var task: (any TransportTask)? { state.withLock { $0.task } }
    /// Whether the task may report its whole response at its end (see
    /// `RequestCore.deliversAtCompletion`) instead of each event as it happens.
    let deliversAtCompletion: Bool
    /// The id of the request that started the network request, for monitors (`nil` when the
    /// session has none: making an id costs a read of the system's random source).
    let leaderID: UUID?
    private let state: Protected<State>
    /// Called once when the flight closes to newcomers (its coalescer forgets it).
    private let onClose: @Sendable (Flight) -> Void
    /// Called once when the flight is over: lets go of what ties the task's events to the flight
    /// (see ``Coalescer/enter(_:as:leaderID:deliversAtCompletion:makeTask:)``).
    private let onEnd: @Sendable () -> Void

    init(
        key: CoalescingKey, deliversAtCompletion: Bool, leader: Subscriber, leaderID: UUID?,
        onClose: @escaping @Sendable (Flight) -> Void, onEnd: @escaping @Sendable () -> Void
    ) {
        self.key = key
        self.deliversAtCompletion = deliversAtCompletion
        self.leaderID = leaderID
        self.state = Protected(State(subscribers: [leader]))
        self.onClose = onClose
        self.onEnd = onEnd
    }

    /// Sets the shared task, made by the leader after the flight was listed.
    func attach(_ task: any TransportTask) {
        state.withLock { $0.task = task }
    }

    /// Adds `subscriber` if the flight is still open and can serve it: a subscriber that needs
    /// the task's events (progress, monitors, an idle timeout) cannot join a task that delivers
    /// only at completion.
    /// - Returns: Whether it joined.
    func join(_ subscriber: Subscriber, needsEvents: Bool) -> Bool {
        guard !(needsEvents && deliversAtCompletion) else { return false }
        return state.withLock { state in
            guard state.isOpen else { return false }
            state.subscribers.append(subscriber)
            return true
        }
    }

    /// The subscribers to hand a task event to; closes the flight to newcomers.
    func deliveryTargets() -> [Subscriber] {
        let (targets, closedNow) = state.withLock { state in
            defer { state.isOpen = false }
            return (state.subscribers, state.isOpen)
        }
        if closedNow { onClose(self) }
        return targets
    }

    /// Removes `subscriber`. When no subscriber is left, the flight is over: the task's later
    /// events (if it runs on) reach no one.
    /// - Returns: `true` when no subscriber is left: the task is no one's any more.
    func leave(_ subscriber: Subscriber) -> Bool {
        let (isEmpty, closedNow, endsNow) = state.withLock { state in
            state.subscribers.removeAll { $0 === subscriber }
            let closedNow = state.isOpen && state.subscribers.isEmpty
            if state.subscribers.isEmpty { state.isOpen = false }
            let endsNow = state.subscribers.isEmpty && !state.isOver
            if endsNow { state.isOver = true }
            return (state.subscribers.isEmpty, closedNow, endsNow)
        }
        if closedNow { onClose(self) }
        if endsNow { onEnd() }
        return isEmpty
    }

    /// The task reported its end (after its subscribers had it): the flight is over, and lets go
    /// of its subscribers (each holds the flight until its caller lets go of it).
    func taskEnded() {
        let (closedNow, endsNow) = state.withLock { state in
            defer {
                state.isOpen = false
                state.isOver = true
                state.subscribers = []
            }
            return (state.isOpen, !state.isOver)
        }
        if closedNow { onClose(self) }
        if endsNow { onEnd() }
    }

    /// How many requests share the task right now.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Whether newcomers may still join.
    var isOpen: Bool { state.withLock { $0.isOpen } }
}
