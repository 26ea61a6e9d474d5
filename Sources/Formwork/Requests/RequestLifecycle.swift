/// The lifecycle of one request, as a pure state machine.
///
/// `initialized → adapting → running → (retrying → adapting → running)* → finished | cancelled`.
/// Each event returns the action its caller must take, so the rules can be unit-tested without a
/// network and applied under one lock by the request objects. A finished request may be
/// `restart`ed for a new attempt (a reload), which starts again at `adapting`.
struct RequestLifecycle: Sendable, Equatable {
    /// Where the request is.
    enum State: Sendable, Equatable {
        /// Created, not started.
        case initialized
        /// Building or adapting the `URLRequest`.
        case adapting
        /// A URLSession task is in flight.
        case running
        /// Waiting before the next attempt.
        case retrying
        /// Done: it has an outcome (success or failure).
        case finished
        /// Done: cancelled before it could finish.
        case cancelled
    }

    /// The current state.
    private(set) var state: State = .initialized
    /// The attempt number: 0 before the first start, then 1, 2, ...
    private(set) var attempt = 0

    /// `true` once the request has an outcome.
    var isDone: Bool { state == .finished || state == .cancelled }

    /// What to do after `start()`.
    enum StartAction: Sendable, Equatable {
        /// Build the request for attempt `attempt`.
        case buildRequest(attempt: Int)
        /// Nothing: it was already started, or it is done.
        case none
    }

    /// The request is asked to start.
    mutating func start() -> StartAction {
        guard state == .initialized else { return .none }
        state = .adapting
        attempt += 1
        return .buildRequest(attempt: attempt)
    }

    /// What to do once the `URLRequest` is built.
    enum AdaptedAction: Sendable, Equatable {
        /// Create and resume the URLSession task.
        case resumeTask
        /// Drop it: the request was cancelled (or this attempt is stale) while it was being built.
        case discard
    }

    /// The `URLRequest` for `attempt` is ready.
    mutating func requestBuilt(attempt: Int) -> AdaptedAction {
        guard state == .adapting, attempt == self.attempt else { return .discard }
        state = .running
        return .resumeTask
    }

    /// What to do when the request is about to end with an outcome.
    enum FinishAction: Sendable, Equatable {
        /// Record the outcome and deliver it.
        case deliver
        /// Ignore it: the request already ended, or this attempt is stale.
        case ignore
    }

    /// Building the request failed, or the task completed and was evaluated: the request ends.
    mutating func finish(attempt: Int) -> FinishAction {
        guard attempt == self.attempt else { return .ignore }
        switch state {
        case .adapting, .running, .retrying:
            state = .finished
            return .deliver
        case .initialized, .finished, .cancelled:
            return .ignore
        }
    }

    /// The task completed and its outcome should be evaluated (validation, retry decision).
    /// Returns `false` when the completion is stale or the request already ended.
    func shouldEvaluateCompletion(attempt: Int) -> Bool {
        state == .running && attempt == self.attempt
    }

    /// What to do on `cancel()`.
    enum CancelAction: Sendable, Equatable {
        /// Cancel the running task and deliver the cancellation.
        case cancelTaskAndDeliver
        /// No task is running: deliver the cancellation.
        case deliver
        /// Nothing: the request already ended.
        case none
    }

    /// The request is cancelled by the app or by its Swift `Task`.
    mutating func cancel() -> CancelAction {
        switch state {
        case .running:
            state = .cancelled
            return .cancelTaskAndDeliver
        case .initialized, .adapting, .retrying:
            state = .cancelled
            return .deliver
        case .finished, .cancelled:
            return .none
        }
    }

    /// The request's total deadline passed: it ends as failed (not cancelled) from any live state,
    /// with no further retries. Returns the same actions as ``cancel()``.
    mutating func expire() -> CancelAction {
        switch state {
        case .running:
            state = .finished
            return .cancelTaskAndDeliver
        case .adapting, .retrying:
            state = .finished
            return .deliver
        case .initialized, .finished, .cancelled:
            return .none
        }
    }

    /// The evaluated completion asks for another attempt (a retry).
    /// Returns `false` when the request already ended.
    mutating func beginRetry(attempt: Int) -> Bool {
        guard state == .running, attempt == self.attempt else { return false }
        state = .retrying
        return true
    }

    /// The retry delay passed: build the request for the next attempt.
    mutating func retryDelayElapsed() -> StartAction {
        guard state == .retrying else { return .none }
        state = .adapting
        attempt += 1
        return .buildRequest(attempt: attempt)
    }

    /// A finished request is sent again (a reload): a new attempt starts at `adapting`.
    /// Cancelled requests stay cancelled.
    mutating func restart() -> StartAction {
        guard state == .finished else { return .none }
        state = .adapting
        attempt += 1
        return .buildRequest(attempt: attempt)
    }
}
