import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task an attempt runs on: its own, or one it shares with identical requests (coalescing).
struct AttemptTask {
    /// The transport's task.
    let task: any TransportTask
    /// Whether this attempt leads: it made the task and resumes it. A follower joined an
    /// identical request's network request and sends nothing of its own.
    let leads: Bool
    /// The id of the request that started the network request, for monitors.
    var leaderID: UUID?
}

// Coalescing (issue 14 §2): identical GET/HEAD requests made while one is in flight share its
// task. Each request keeps its own state machine, hooks, validation, decoding, retries and
// cancellation; the shared task's events go to each of them, with each one's own attempt number
// (see `Flight` and `FlightEvents`).
extension RequestCore {
    /// Creates the task of `attempt`, or joins an identical request's task in flight, and routes
    /// the task's events to this request. Runs in the locked step that made the attempt running,
    /// so a cancel that follows always finds the task.
    /// - Parameters:
    ///   - prepared: The final request of the attempt.
    ///   - attempt: The attempt number.
    ///   - atCompletion: Whether a task made here may report its whole response at its end
    ///     (see `deliversAtCompletion`).
    ///   - state: The request's state, locked by the caller.
    /// - Returns: The task, and whether it is shared.
    func makeOrJoinTask(
        _ prepared: PreparedRequest, attempt: Int, atCompletion: Bool, state: inout State
    ) -> AttemptTask {
        let request = prepared.transportRequest(isObserved: !atCompletion, pacing: sink?.pacing ?? .never)
        guard let key = coalescingKey(for: prepared) else {
            let task = session.transport.makeTask(
                for: request, events: AttemptEvents(core: self, attempt: attempt))
            return AttemptTask(task: task, leads: true)
        }
        let subscriber = Flight.Subscriber(core: self, attempt: attempt)
        if state.id == nil, !session.configuration.eventMonitors.isEmpty { state.id = UUID() }
        let entry = session.coalescer.enter(
            key, as: subscriber, leaderID: state.id, deliversAtCompletion: atCompletion
        ) { flight in
            // Every request sharing the task gets each event, with its own attempt.
            session.transport.makeTask(for: request, events: FlightEvents(flight: flight))
        }
        switch entry {
        case .lead(let flight):
            state.machine.updateRunning(attempt: attempt) { $0.flight = flight }
            return AttemptTask(task: flight.task, leads: true)
        case .follow(let flight):
            state.machine.updateRunning(attempt: attempt) { $0.flight = flight }
            return AttemptTask(task: flight.task, leads: false, leaderID: flight.leaderID)
        }
    }

    /// The key of an attempt that may share an identical request's network request, or `nil`:
    /// the form and the session allow it, nothing goes to a sink (downloads), and the final request
    /// is a GET or HEAD without a body (see ``CoalescingKey``).
    func coalescingKey(for prepared: PreparedRequest) -> CoalescingKey? {
        guard prepared.coalesces, sink == nil, session.configuration.coalescesRequests,
            case .inRequest = prepared.body
        else { return nil }
        return CoalescingKey(prepared.urlRequest, formCachePolicy: prepared.cache?.policy)
    }

    /// Starts the attempt's task: a leader tells monitors it starts and resumes the task; a
    /// follower tells them it joined another request's network request (which is already resumed
    /// or about to be).
    func begin(_ attemptTask: AttemptTask, request: URLRequest, attempt: Int) {
        let monitors = session.configuration.eventMonitors
        guard !attemptTask.leads else {
            for monitor in monitors { monitor.requestDidStart(id, request: request, attempt: attempt) }
            attemptTask.task.resume()
            return
        }
        guard !monitors.isEmpty, let leaderID = attemptTask.leaderID else { return }
        let id = self.id
        for monitor in monitors {
            monitor.requestDidCoalesce(id, request: request, attempt: attempt, sharingWith: leaderID)
        }
    }

    /// Gives up this request's use of `task` (the attempt ended, or will be retried). The task is
    /// cancelled if `cancelling` and no other request shares it; while others do, it runs on for
    /// them. (Its later events, if any, are ignored: they name an attempt that is over.)
    func releaseTask(_ task: any TransportTask, cancelling: Bool) {
        // Leaving twice (an idle timeout, then the end) is harmless: the flight stays known, so
        // the second release never takes the task from the requests still sharing it.
        let flight = state.withLock { state in
            state.machine.latest?.flight.flatMap { $0.task === task ? $0 : nil }
        }
        if let flight, !flight.leave(self) { return }
        if cancelling { task.cancel() }
    }
}
