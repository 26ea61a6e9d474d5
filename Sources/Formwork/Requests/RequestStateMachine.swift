/// Every rule of one request: attempts, retries, reconnections, restarts, retry waits, deadlines,
/// cancellation, reloads and the ordered, exactly-once delivery to handlers. Its states carry the
/// values they use: an attempt's values (``RequestAttempt``, one object per attempt, changed in
/// place under the owner's lock), the pending retry wait, and, once the request ended, its outcome
/// and the progress of its delivery. Leaving a state drops them.
///
/// Each event is a `mutating func` that returns the ``Action`` its owner must perform. The owner
/// (``RequestCore``) keeps the machine in its one locked state, feeds it events (time included:
/// a deadline, an idle timeout or the end of a retry wait is an event), performs the returned
/// action outside the lock and decides nothing itself: what only the sink or the cache can tell
/// (a stream's reconnection, a download's next segment, a cached answer to drop) comes with the
/// event. No I/O, clocks or locks live here: timers are opaque handles the machine keeps and hands
/// back for cancelling, never calls. So every transition is unit-tested without a network.
///
/// Events that can legitimately race with the machine (a late callback of an old attempt's task,
/// data after a cancel, a retry decision after a deadline) return ``Action/ignore``. Events that
/// cannot happen in a correct owner (an event for an attempt not started yet, a drain step with no
/// drain running) are illegal: an assertion in debug builds, ``Action/ignore`` in release.
///
/// `initialized → adapting → running → (askingRetriers → waitingToRetry → adapting → running)*
/// → finished | cancelled`, and `finished → adapting` again on a reload.
struct RequestStateMachine: Sendable {
    /// Where the request is. A case that belongs to an attempt carries that attempt's values
    /// (``RequestAttempt``): leaving the attempt drops them, so the next one starts empty.
    enum State: Sendable {
        /// Created, not started.
        case initialized
        /// Building or adapting the `URLRequest` of `attempt`. `previous` is the attempt this one
        /// follows (a retry or a restart), kept until this one is sent; nil for the first attempt
        /// and for a reload.
        case adapting(attempt: Int, previous: RequestAttempt?)
        /// The attempt's task is in flight.
        case running(RequestAttempt)
        /// The attempt failed; the retriers are deciding whether to try again.
        case askingRetriers(RequestAttempt)
        /// The attempt failed and will be retried once the wait ends; `wait` is the owner's timer
        /// of that wait, once it runs (cancelled if the request ends first).
        case waitingToRetry(RequestAttempt, wait: Timer?)
        /// Done with an outcome (success or failure).
        case finished(Done)
        /// Done: cancelled before it could finish.
        case cancelled(Done)
    }

    /// A timer the owner runs (a retry wait, a deadline): the machine only keeps it and hands it
    /// back to be cancelled.
    typealias Timer = Task<Void, Never>

    /// The values of a request that ended: what it ended with and how far its delivery got. A
    /// reload starts a new run, which drops them.
    ///
    /// A class, changed in place, because a measurement says so: as a value (with the outcome in
    /// it), every read of a delivery flag and every change copied the whole outcome out of the
    /// state and back, about 9k instructions per small request (callgrind, same binary and
    /// inputs). Like ``RequestAttempt``, read and change it only under the request's lock.
    final class Done: @unchecked Sendable {  // only touched under its request's lock
        /// The attempt the request ended with, if any was sent.
        let last: RequestAttempt?
        /// The outcome, once the owner recorded it (delivery may start).
        var outcome: RequestOutcome?
        /// Handlers that ran (or run) with the outcome.
        var handlersRun = 0
        /// Whether the one drain of handlers is running.
        var isDraining = false
        /// A reload asked for while the outcome was still being delivered: it starts after the
        /// drain.
        var reloadPending = false
        /// Whether the pending reload is a background refresh (every reload asked for was one).
        var pendingReloadIsBackground = false

        init(last: RequestAttempt?) {
            self.last = last
        }
    }

    /// The request's deadline: the same for every run (a reload gets the whole deadline again).
    struct Deadline: Sendable {
        /// The deadline in seconds (the request's own or the session's), if any.
        var seconds: TimeInterval?
        /// Whether the request set it itself: the session's default must not replace it.
        var isOwn = false
        /// The owner's timer of the current run, until the request ends.
        var timer: Timer?
    }

    /// Why the owner must end a running attempt before its transport does.
    enum Interruption: Sendable, Equatable {
        /// Nothing moved for the attempt's idle timeout: it fails as a timeout (retryable).
        case idleTimeout
        /// The sink could not write the body: it fails with the sink's error.
        case sinkWriteFailed
    }

    /// Where the request is, without the attempt's values: what tests and logs compare.
    enum Position: Sendable, Equatable {
        case initialized
        case adapting(attempt: Int)
        case running(attempt: Int)
        case askingRetriers(attempt: Int)
        case waitingToRetry(attempt: Int)
        case finished
        case cancelled
    }

    /// How a request that ends got its outcome: the owner makes the outcome from it.
    enum Ending: Sendable, Equatable {
        /// The outcome the caller's event carried (success, or the attempt's failure).
        case reported
        /// Cancelled by the app or by its Swift `Task`.
        case cancelled
        /// Its total deadline passed: a timeout failure.
        case deadlineExceeded
    }

    /// What the owner must do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing to do (e.g. a second `start()`).
        case none
        /// A late or stale event (old attempt, after the end): drop it and its data.
        case ignore
        /// Take the event's data: it belongs to the current attempt.
        case record
        /// Build and adapt the `URLRequest` of `attempt`.
        case buildRequest(attempt: Int)
        /// Create and resume the task of `attempt` with the request just built.
        case createAndResumeTask(attempt: Int)
        /// Drop the request just built (cancelled or stale meanwhile): remove its temporary files.
        case discardRequest
        /// Ask the retriers about the failure of `attempt`, then report `retryDecided` or
        /// `retryNotNeeded`.
        case askRetriers(attempt: Int)
        /// Give up `attempt`'s task and wait `delay` seconds (report `retryWaitStarted` with the
        /// wait's timer), then report `retryWaitEnded`.
        case scheduleRetry(after: Double, attempt: Int)
        /// Cancel the old attempt's task at once and build the request of `attempt`.
        case cancelTaskAndBuildRequest(attempt: Int)
        /// Cancel the task of the running `attempt` and complete the attempt at once with the
        /// failure of `interruption` (a cancelled task reports nothing more).
        case interruptAttempt(attempt: Int, Interruption)
        /// Cancel this timer (one replaced, or one that came too late to be kept).
        case cancelTimer(Timer)
        /// The request ended: settle the body and temporary files, record the outcome, deliver it
        /// to waiters, then report `outcomeRecorded`. Cancel the task first if `cancellingTask`,
        /// and the timers that no longer run (the deadline, a retry wait).
        case deliver(Ending, cancellingTask: Bool, deadline: Timer? = nil, retryWait: Timer? = nil)
        /// Start the one drain of handlers; it reports `handlerFinished` for each step.
        case startDraining
        /// Run handler number `index` (0-based, in the order chained) with the outcome.
        case runHandler(index: Int)
        /// A reload: run the later-attempt hooks, then build the request of `attempt`. A
        /// `background` reload (the refresh of cache-then-network, whose first answer is already on
        /// screen) skips those hooks.
        case reload(attempt: Int, background: Bool = false)
    }

    /// The current state.
    private(set) var state: State = .initialized
    /// The attempt number: 0 before the first start, then 1, 2, ... (reloads count too).
    private(set) var attempt = 0
    /// How many retries were decided so far (reloads do not count).
    private(set) var retryCount = 0

    /// Handlers chained so far.
    private(set) var handlerCount = 0
    /// The request's deadline and the timer of the current run.
    private(set) var deadline = Deadline()
    /// Whether the current run is a background refresh: its start ran no later-attempt hooks, so
    /// the hooks' end must not run for its outcome either. Retries within the run keep it.
    private(set) var isBackgroundRefresh = false

    /// The coarse phase of ``state``, as tests and `Request.isFinished` read it.
    enum Phase: Sendable, Equatable {
        /// Created, not started.
        case initialized
        /// Building or adapting the `URLRequest`.
        case adapting
        /// A task is in flight, or its failure is with the retriers.
        case running
        /// Waiting before the next attempt.
        case retrying
        /// Done with an outcome.
        case finished
        /// Done: cancelled.
        case cancelled
    }

    /// The values of the request's end, once it ended.
    var done: Done? {
        switch state {
        case .finished(let done), .cancelled(let done): done
        default: nil
        }
    }

    /// The outcome of the request's end, once the owner recorded it.
    var outcome: RequestOutcome? { done?.outcome }
    /// Whether the owner recorded the outcome of the request's end (delivery may start).
    var hasOutcome: Bool { done?.outcome != nil }
    /// Handlers that ran (or run) with the current outcome.
    var handlersRun: Int { done?.handlersRun ?? 0 }
    /// Whether the one drain of handlers is running.
    var isDraining: Bool { done?.isDraining ?? false }
    /// A reload asked for while the outcome was still being delivered: it starts after the drain.
    var reloadPending: Bool { done?.reloadPending ?? false }
    /// Whether the pending reload is a background refresh (every reload asked for was one).
    var pendingReloadIsBackground: Bool { done?.pendingReloadIsBackground ?? false }

    /// Changes the values of the request's end in place.
    /// - Returns: What `change` returns, or nil when the request has not ended.
    @discardableResult
    private func updateDone<Result>(_ change: (Done) -> Result) -> Result? {
        done.map(change)
    }

    /// The coarse phase of ``state``.
    var phase: Phase {
        switch state {
        case .initialized: .initialized
        case .adapting: .adapting
        case .running, .askingRetriers: .running
        case .waitingToRetry: .retrying
        case .finished: .finished
        case .cancelled: .cancelled
        }
    }

    /// ``state`` without the attempt's values.
    var position: Position {
        switch state {
        case .initialized: .initialized
        case .adapting(let attempt, _): .adapting(attempt: attempt)
        case .running(let values): .running(attempt: values.number)
        case .askingRetriers(let values): .askingRetriers(attempt: values.number)
        case .waitingToRetry(let values, _): .waitingToRetry(attempt: values.number)
        case .finished: .finished
        case .cancelled: .cancelled
        }
    }

    /// `true` once the request ended (finished or cancelled).
    var isDone: Bool {
        switch state {
        case .finished, .cancelled: true
        default: false
        }
    }

    /// `true` once the request finished with an outcome (not cancelled).
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Whether `attempt`'s task is the current, running one (its events count).
    func isRunning(attempt: Int) -> Bool {
        if case .running(let values) = state { return values.number == attempt }
        return false
    }

    /// Whether progress of `attempt` still counts: it is the current attempt and the request has
    /// not ended.
    func acceptsProgress(attempt: Int) -> Bool { attempt == self.attempt && !isDone }

    /// The values of the latest attempt sent: the running one, the one the retriers or a retry
    /// wait are about, the one a new attempt follows while it is built, or the last one of a
    /// request that ended. Nil before anything was sent and while a reload is built.
    var latest: RequestAttempt? {
        switch state {
        case .initialized: nil
        case .adapting(_, let previous): previous
        case .running(let values), .askingRetriers(let values), .waitingToRetry(let values, _): values
        case .finished(let done), .cancelled(let done): done.last
        }
    }

    /// Changes the values of ``latest`` in place (nothing when there is none).
    /// - Returns: What `change` returns, or nil when there is no attempt.
    @discardableResult
    func updateLatest<Result>(_ change: (RequestAttempt) -> Result) -> Result? {
        latest.map(change)
    }

    /// Changes the values of `attempt` while it runs (nothing for a stale or ended attempt).
    /// - Returns: What `change` returns, or nil when `attempt` is not running.
    @discardableResult
    func updateRunning<Result>(attempt: Int, _ change: (RequestAttempt) -> Result) -> Result? {
        guard case .running(let values) = state, values.number == attempt else { return nil }
        return change(values)
    }

    /// Takes the task of ``latest`` away from the state, for the owner to release it.
    func takeTask() -> (any TransportTask)? {
        updateLatest { values in
            defer { values.task = nil }
            return values.task
        } ?? nil
    }

    /// An event names an attempt not started yet: the owner is wrong.
    func illegal(_ event: String) -> Action {
        assertionFailure("RequestStateMachine: illegal event \(event) in state \(state), attempt \(attempt)")
        return .ignore
    }

    // MARK: Starting and building

    /// The request is asked to start (idempotent).
    mutating func start() -> Action {
        guard case .initialized = state else { return .none }
        return beginAttempt(after: nil)
    }

    private mutating func beginAttempt(after previous: RequestAttempt?) -> Action {
        attempt += 1
        state = .adapting(attempt: attempt, previous: previous)
        return .buildRequest(attempt: attempt)
    }

    /// The `URLRequest` of `attempt` is built and adapted: the attempt runs with `prepared`, with
    /// nothing received yet (the attempt it follows, if any, is dropped).
    mutating func adapted(attempt: Int, prepared: PreparedRequest) -> Action {
        guard attempt <= self.attempt else { return illegal("adapted(\(attempt))") }
        guard case .adapting(attempt, _) = state else { return .discardRequest }
        state = .running(RequestAttempt(number: attempt, prepared: prepared))
        return .createAndResumeTask(attempt: attempt)
    }

    /// Building or adapting the `URLRequest` of `attempt` failed (or it breaks a rule checked
    /// before sending): the request ends with that failure, without asking the retriers.
    mutating func adaptFailed(attempt: Int) -> Action {
        guard attempt <= self.attempt else { return illegal("adaptFailed(\(attempt))") }
        guard case .adapting(attempt, _) = state else { return .ignore }
        return end(.reported, cancellingTask: false)
    }

    // MARK: Task events

    /// The response head of `attempt` arrived.
    func responseReceived(attempt: Int) -> Action { taskEvent(attempt: attempt, "responseReceived") }

    /// Body bytes of `attempt` arrived.
    func dataReceived(attempt: Int) -> Action { taskEvent(attempt: attempt, "dataReceived") }

    private func taskEvent(attempt: Int, _ name: String) -> Action {
        guard attempt <= self.attempt else { return illegal("\(name)(\(attempt))") }
        return isRunning(attempt: attempt) ? .record : .ignore
    }

    /// The task of `attempt` ended and passed validation. `wantsNextSegment` is the sink's
    /// answer: a download fetched in segments wants the next one, which a new attempt fetches at
    /// once (not a retry). Otherwise the request ends with the success.
    mutating func attemptSucceeded(attempt: Int, wantsNextSegment: Bool = false) -> Action {
        guard attempt <= self.attempt else { return illegal("attemptSucceeded(\(attempt))") }
        guard case .running(let values) = state, values.number == attempt else { return .ignore }
        if wantsNextSegment { return restart(after: values) }
        return end(.reported, cancellingTask: false)
    }

    /// The task of `attempt` ended with `failure` (a transport error, a failed validation, a
    /// settled failure). In order: a cancellation ends the request; the failed cached first
    /// answer of cache-then-network (`isCachedFirstAnswer`, the cache's rule) is dropped like a
    /// miss and the next attempt asks the network at once, without the retriers; a stream whose
    /// own rule reconnects (`reconnectAfter`, the sink's answer) waits that long, then opens a
    /// new connection (see ``reconnectDecided(attempt:delay:)``); any other failure goes to the
    /// retriers.
    mutating func attemptFailed(
        attempt: Int, failure: NetworkError, isCachedFirstAnswer: Bool = false, reconnectAfter: Double? = nil
    ) -> Action {
        guard attempt <= self.attempt else { return illegal("attemptFailed(\(attempt))") }
        guard case .running(let values) = state, values.number == attempt else { return .ignore }
        if failure.isCancelled { return end(.reported, cancellingTask: false) }
        if isCachedFirstAnswer { return restart(after: values) }
        state = .askingRetriers(values)
        if let reconnectAfter { return reconnectDecided(attempt: attempt, delay: reconnectAfter) }
        return .askRetriers(attempt: attempt)
    }

    /// Nothing moved for `attempt` during its idle timeout (the owner's watch says so): its task is
    /// cancelled and the attempt fails as the transport's own timeout would.
    func idleTimedOut(attempt: Int) -> Action {
        guard attempt <= self.attempt else { return illegal("idleTimedOut(\(attempt))") }
        return isRunning(attempt: attempt) ? .interruptAttempt(attempt: attempt, .idleTimeout) : .ignore
    }

    /// The sink failed to write a body chunk of `attempt` with `error`: the attempt keeps the
    /// error (it wins over the cancel that follows), ignores any further data, and ends at once.
    func sinkWriteFailed(attempt: Int, error: NetworkError) -> Action {
        guard attempt <= self.attempt else { return illegal("sinkWriteFailed(\(attempt))") }
        guard case .running(let values) = state, values.number == attempt, values.sinkFailure == nil else {
            return .ignore
        }
        values.sinkFailure = error
        return .interruptAttempt(attempt: attempt, .sinkWriteFailed)
    }

    /// The running `attempt` must be dropped and a new one started at once, e.g. when a resumed
    /// download must start again from zero (not a retry).
    mutating func restartRequested(attempt: Int) -> Action {
        guard attempt <= self.attempt else { return illegal("restartRequested(\(attempt))") }
        guard case .running(let values) = state, values.number == attempt else { return .ignore }
        return restart(after: values)
    }

    private mutating func restart(after values: RequestAttempt) -> Action {
        self.attempt += 1
        state = .adapting(attempt: self.attempt, previous: values)
        return .cancelTaskAndBuildRequest(attempt: self.attempt)
    }

    // MARK: Retries

    /// The retriers want `attempt` tried again after `delay` seconds.
    mutating func retryDecided(attempt: Int, delay: Double) -> Action {
        guard attempt <= self.attempt else { return illegal("retryDecided(\(attempt))") }
        guard case .askingRetriers(let values) = state, values.number == attempt else { return .ignore }
        retryCount += 1
        state = .waitingToRetry(values, wait: nil)
        return .scheduleRetry(after: max(0, delay), attempt: attempt)
    }

    /// A stream's connection `attempt` ended in a way its own rule answers with a reconnection
    /// after `delay` seconds (an event stream that ended or dropped). Like a retry, but it is a
    /// new connection, not a repair of a failed one: the retry count starts again from zero, so
    /// retriers (a token refresh on 401) get their full budget on every connection.
    mutating func reconnectDecided(attempt: Int, delay: Double) -> Action {
        guard attempt <= self.attempt else { return illegal("reconnectDecided(\(attempt))") }
        guard case .askingRetriers(let values) = state, values.number == attempt else { return .ignore }
        retryCount = 0
        state = .waitingToRetry(values, wait: nil)
        return .scheduleRetry(after: max(0, delay), attempt: attempt)
    }

    /// The retriers (or their absence) let the failure of `attempt` stand: the request ends.
    mutating func retryNotNeeded(attempt: Int) -> Action {
        guard attempt <= self.attempt else { return illegal("retryNotNeeded(\(attempt))") }
        guard case .askingRetriers(let values) = state, values.number == attempt else { return .ignore }
        return end(.reported, cancellingTask: false)
    }

    /// The owner's timer of the wait before retrying `attempt` runs: the state keeps it, so that
    /// the request's end cancels it. A timer that comes after the wait ended (or a second one) is
    /// not kept: the action says to cancel it.
    mutating func retryWaitStarted(attempt: Int, timer: Timer) -> Action {
        guard attempt <= self.attempt else { return illegal("retryWaitStarted(\(attempt))") }
        guard case .waitingToRetry(let values, .none) = state, values.number == attempt else {
            return .cancelTimer(timer)
        }
        state = .waitingToRetry(values, wait: timer)
        return .record
    }

    /// The wait before retrying `attempt` is over: the next attempt starts.
    mutating func retryWaitEnded(attempt: Int) -> Action {
        guard attempt <= self.attempt else { return illegal("retryWaitEnded(\(attempt))") }
        guard case .waitingToRetry(let values, _) = state, values.number == attempt else { return .ignore }
        return beginAttempt(after: values)
    }

    // MARK: Ending early

    /// The request is cancelled by the app or by its Swift `Task`, in any live state.
    mutating func cancel() -> Action {
        let cancellingTask: Bool
        switch state {
        case .running: cancellingTask = true
        case .initialized, .adapting, .askingRetriers, .waitingToRetry: cancellingTask = false
        case .finished, .cancelled: return .ignore
        }
        let (deadline, retryWait) = takeTimers()
        state = .cancelled(Done(last: latest))
        return .deliver(.cancelled, cancellingTask: cancellingTask, deadline: deadline, retryWait: retryWait)
    }

    /// The request's deadline is set to `seconds` (`own`: by the request itself, else the
    /// session's default), with the owner's `timer` for it. It replaces an earlier deadline,
    /// except that the session's default never replaces one the request set itself. It is kept
    /// for later runs: a reload gets the whole deadline again.
    /// - Returns: The timer to cancel (the one replaced, or `timer` itself when not kept).
    mutating func deadlineSet(seconds: TimeInterval, own: Bool, timer: Timer) -> Action {
        if !own, deadline.isOwn { return .cancelTimer(timer) }
        let previous = deadline.timer
        deadline = Deadline(seconds: seconds, isOwn: own || deadline.isOwn, timer: timer)
        return previous.map { .cancelTimer($0) } ?? .none
    }

    /// The request's total deadline passed: it ends as failed (not cancelled) from any started,
    /// live state, with no further retries. A request not started yet has no deadline running.
    mutating func deadlinePassed() -> Action {
        switch state {
        case .running:
            return end(.deadlineExceeded, cancellingTask: true)
        case .adapting, .askingRetriers, .waitingToRetry:
            return end(.deadlineExceeded, cancellingTask: false)
        case .initialized, .finished, .cancelled:
            return .ignore
        }
    }

    private mutating func end(_ ending: Ending, cancellingTask: Bool) -> Action {
        let (deadline, retryWait) = takeTimers()
        state = .finished(Done(last: latest))
        return .deliver(ending, cancellingTask: cancellingTask, deadline: deadline, retryWait: retryWait)
    }

    /// Takes the timers that stop with the run: the deadline's, and the retry wait's if waiting.
    private mutating func takeTimers() -> (deadline: Timer?, retryWait: Timer?) {
        defer { deadline.timer = nil }
        if case .waitingToRetry(_, let wait) = state { return (deadline.timer, wait) }
        return (deadline.timer, nil)
    }

    // MARK: Delivery

    // Delivery: the outcome reaches every handler exactly once, in the order chained, also when a
    // handler is chained after the end; a reload waits for the delivery in progress.

    /// The owner recorded `outcome`, the request's end (after a `deliver` action).
    mutating func outcomeRecorded(_ outcome: RequestOutcome) -> Action {
        guard isDone, !hasOutcome else { return illegal("outcomeRecorded") }
        updateDone { $0.outcome = outcome }
        return nextDelivery()
    }

    /// A handler was chained (the owner keeps it at index `handlerCount - 1`).
    mutating func handlerChained() -> Action {
        handlerCount += 1
        return nextDelivery()
    }

    /// Starts the drain when there is an outcome, a handler waiting for it and no drain running;
    /// otherwise runs a pending reload once nothing is left to deliver.
    private mutating func nextDelivery() -> Action {
        guard hasOutcome, !isDraining else { return .none }
        if handlersRun < handlerCount {
            updateDone { $0.isDraining = true }
            return .startDraining
        }
        return reloadPending ? reloadNow(background: pendingReloadIsBackground) : .none
    }

    /// The drain is ready for its next handler: right after `startDraining`, then after each
    /// handler returns. Ends the drain when every handler ran, then runs a pending reload.
    mutating func handlerFinished() -> Action {
        guard isDraining else { return illegal("handlerFinished") }
        let handlerCount = handlerCount
        let next = updateDone { done -> Int? in
            if done.outcome != nil, done.handlersRun < handlerCount {
                done.handlersRun += 1
                return done.handlersRun - 1
            }
            done.isDraining = false
            return nil
        }
        if let index = next ?? nil { return .runHandler(index: index) }
        return reloadPending ? reloadNow(background: pendingReloadIsBackground) : .none
    }

    /// The app asks to send the finished request again through the same chain: every handler
    /// runs again with the new attempt's outcome. While the outcome is still being delivered (or
    /// not recorded yet) the reload waits for the delivery. A cancelled or still running request
    /// does not reload.
    ///
    /// A `background` reload is the refresh that follows a value already delivered (cache-then-
    /// network): its action says so, and so does ``isBackgroundRefresh`` until the next reload. A
    /// reload asked for in the foreground while a background one waits makes it a foreground one.
    mutating func reload(background: Bool = false) -> Action {
        guard isFinished else { return .none }
        guard hasOutcome, !isDraining else {
            updateDone { done in
                done.pendingReloadIsBackground =
                    (done.reloadPending ? done.pendingReloadIsBackground : true) && background
                done.reloadPending = true
            }
            return .none
        }
        return reloadNow(background: background)
    }

    private mutating func reloadNow(background: Bool) -> Action {
        guard isFinished else { return .none }
        attempt += 1
        isBackgroundRefresh = background
        // A new run: the previous one's last attempt, outcome and delivery are dropped.
        state = .adapting(attempt: attempt, previous: nil)
        return .reload(attempt: attempt, background: background)
    }
}
