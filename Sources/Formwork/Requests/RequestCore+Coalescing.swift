import Foundation

/// The task an attempt runs on: its own, or one it shares with identical requests (coalescing).
struct AttemptTask {
    /// The URLSession task.
    let task: URLSessionTask
    /// Whether this attempt leads: it made the task and resumes it. A follower joined an
    /// identical request's network request and sends nothing of its own.
    let leads: Bool
    /// The id of the request that started the network request, for monitors.
    var leaderID: UUID?
}

// Coalescing (issue 14 §2): identical GET/HEAD requests made while one is in flight share its
// task. Each request keeps its own state machine, hooks, validation, decoding, retries and
// cancellation; the session delegate hands the shared task's events to each of them, with each
// one's own attempt number (see `Flight` and `SessionDelegate`).
extension RequestCore {
    /// Creates the task of `attempt`, or joins an identical request's task in flight, and routes
    /// the task's events to this request. Runs in the locked step that made the attempt running,
    /// so a cancel that follows always finds the task.
    /// - Parameters:
    ///   - prepared: The final request of the attempt.
    ///   - attempt: The attempt number.
    ///   - atCompletion: Whether a task made here delivers its whole response to a completion
    ///     handler (see `deliversAtCompletion`).
    ///   - state: The request's state, locked by the caller.
    /// - Returns: The task, and whether it is shared.
    func makeOrJoinTask(
        _ prepared: PreparedRequest, attempt: Int, atCompletion: Bool, state: inout State
    ) -> AttemptTask {
        guard let key = coalescingKey(for: prepared) else {
            state.flight = nil
            let task: URLSessionTask
            if atCompletion {
                task = prepared.makeTask(in: session.urlSession) { data, response, error in
                    self.taskDidFinish(data: data, response: response, error: error, attempt: attempt)
                }
            } else {
                task = prepared.makeTask(in: session.urlSession)
            }
            // Also for completion-handler tasks: redirects and authentication challenges need it.
            session.router.register(task, handler: self, attempt: attempt, deliversAtCompletion: atCompletion)
            return AttemptTask(task: task, leads: true)
        }
        let subscriber = Flight.Subscriber(core: self, attempt: attempt)
        if state.id == nil, !session.configuration.eventMonitors.isEmpty { state.id = UUID() }
        let entry = session.coalescer.enter(
            key, as: subscriber, leaderID: state.id, deliversAtCompletion: atCompletion
        ) { flight in
            guard atCompletion else { return prepared.makeTask(in: session.urlSession) }
            return prepared.makeTask(in: session.urlSession) { data, response, error in
                // Every request sharing the task gets the whole response, with its own attempt.
                for target in flight()?.deliveryTargets() ?? [] {
                    target.core.taskDidFinish(
                        data: data, response: response, error: error, attempt: target.attempt)
                }
            }
        }
        switch entry {
        case .lead(let flight):
            state.flight = flight
            session.router.register(
                flight.task, handler: self, attempt: attempt, deliversAtCompletion: atCompletion,
                flight: flight)
            return AttemptTask(task: flight.task, leads: true)
        case .follow(let flight):
            state.flight = flight
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

    /// Gives up this request's use of `task` (the attempt ended, or will be retried): the session
    /// delegate stops routing its events here. The task is cancelled if `cancelling` and no other
    /// request shares it; while others do, it runs on for them.
    func releaseTask(_ task: URLSessionTask, cancelling: Bool) {
        // Leaving twice (an idle timeout, then the end) is harmless: the flight stays known, so
        // the second release never takes the task from the requests still sharing it.
        let flight = state.withLock { state in state.flight.flatMap { $0.task === task ? $0 : nil } }
        if let flight, !flight.leave(self) { return }
        session.router.unregister(task)
        if cancelling { task.cancel() }
    }
}
