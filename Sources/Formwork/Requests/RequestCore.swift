import Foundation

/// The engine behind every request object: lifecycle, URLSession task, body, progress,
/// validation and the ordered delivery of the outcome to handlers and async waiters.
///
/// All mutable state sits in one struct behind one lock. The outcome is recorded and the one
/// drain of pending handlers is scheduled in the same locked step, so handlers run exactly once,
/// in the order they were chained, also when chained after the request finished.
///
/// Opaque outside Formwork: it is public only so that ``Request`` can give every request type
/// the same hooks.
public final class RequestCore: Sendable {
    /// One link of the handler chain: runs once per attempt with that attempt's outcome.
    typealias Link = @Sendable (RequestOutcome) async -> Void
    /// Prepares what an attempt sends. Throws ``NetworkError`` (untyped in the function type:
    /// typed-throws function types need the iOS 18 / macOS 15 runtime).
    typealias Builder = @Sendable (_ attempt: Int) async throws -> PreparedRequest

    /// Which direction progress reports follow.
    enum ProgressDirection: Sendable {
        /// Bytes received (data requests and downloads).
        case download
        /// Bytes sent (uploads).
        case upload
    }

    struct State {
        var id: UUID?
        var lifecycle = RequestLifecycle()
        var startedAt: Date?
        var task: URLSessionTask?
        var prepared: PreparedRequest?
        var response: HTTPURLResponse?
        var data = Data()
        /// `true` while the current attempt's body goes to the sink rather than to `data`.
        var writesToSink = false
        /// Set when the sink failed mid-body: the attempt ends with this error.
        var sinkFailure: NetworkError?
        /// An attempt that Formwork ended itself on an event of the session delegate (a declined
        /// authentication challenge, a refused redirect): the task's own later end, a cancellation,
        /// is read as this outcome instead (see `RequestCore+Challenges.swift`).
        var settledAttempt: SettledAttempt?
        var validation = ValidationRules()
        var adapters: [any RequestAdapter] = []
        var retriers: [any RequestRetrier] = []
        var retryCount = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var progress: TransferProgress?
        /// The last progress observers heard of.
        var notifiedProgress: TransferProgress?
        var progressObservers: [ProgressObserver] = []
        var outcome: RequestOutcome?
        var links: [Link] = []
        var delivered = 0
        var isDraining = false
        var restartPending = false
        var attemptStartHandlers: [@MainActor @Sendable () -> Void] = []
        var waiters: [@Sendable (RequestOutcome) -> Void] = []
        var deadlineTimer: Task<Void, Never>?
        /// Whether the deadline was set by the request itself (`deadline(_:)`): the session's
        /// default deadline must not replace it.
        var hasOwnDeadline = false
        /// The wait before a retry; cancelled when the request ends meanwhile, so nothing sleeps on
        /// holding the request.
        var retryWait: Task<Void, Never>?
    }

    /// A unique id, stable for the life of the request. Made when first asked for: a `UUID()`
    /// reads `/dev/urandom` on Linux (open, read, close), which most requests never need.
    var id: UUID {
        if let id = state.withLock({ $0.id }) { return id }
        let fresh = UUID()
        return state.withLock { state in
            if let id = state.id { return id }
            state.id = fresh
            return fresh
        }
    }
    /// The session that runs the request.
    let session: Session
    /// Where the body goes instead of memory, for downloads.
    let sink: (any ResponseSink)?
    /// Which bytes progress counts.
    let progressDirection: ProgressDirection
    private let builder: Builder
    let state = Protected(State())

    /// The most body bytes kept in memory for a response the sink declined (an error body).
    static let errorBodyLimit = 1 << 20

    init(
        session: Session, sink: (any ResponseSink)? = nil, progress: ProgressDirection = .download,
        builder: @escaping Builder
    ) {
        self.session = session
        self.sink = sink
        self.progressDirection = progress
        self.builder = builder
    }

    // MARK: Reading

    /// The last `URLRequest` sent (or being sent).
    var request: URLRequest? { state.withLock { $0.prepared?.urlRequest } }
    /// The last HTTP response received.
    var response: HTTPURLResponse? { state.withLock { $0.response } }
    /// The lifecycle state.
    var lifecycleState: RequestLifecycle.State { state.withLock { $0.lifecycle.state } }
    /// The URLSession task of the current attempt.
    var task: URLSessionTask? { state.withLock { $0.task } }
    /// The latest progress of the current attempt, if any bytes moved yet.
    var progress: TransferProgress? { state.withLock { $0.progress } }

    // MARK: Configuring

    /// Changes the validation rules (applied when the response arrives).
    func updateValidation(_ change: (inout ValidationRules) -> Void) {
        state.withLock { change(&$0.validation) }
    }

    // MARK: Running

    /// Starts the request once, whichever comes first: the first handler, hook or async accessor
    /// chained on it, `resume()`, or this scheduled start, which runs on the creating caller's
    /// actor after its current work, so everything chained in the same statement (adapters
    /// included) is in place.
    ///
    /// A caller with no actor gets no scheduled start: on the global executor it would race the
    /// rest of the statement (an adapter chained on the same line was missed about one time in
    /// six). Its request starts at the first handler, hook, async accessor or `resume()`.
    func scheduleStart(isolation: isolated (any Actor)? = #isolation) {
        guard isolation != nil else { return }
        Task {
            _ = isolation
            self.start()
        }
    }

    /// Starts the first attempt now (idempotent). The URLRequest is built off the caller's thread.
    func start() {
        let (action, hasOwnDeadline) = state.withLock { state -> (RequestLifecycle.StartAction, Bool) in
            let action = state.lifecycle.start()
            if case .buildRequest = action { state.startedAt = Date() }
            return (action, state.hasOwnDeadline)
        }
        guard case .buildRequest(let attempt) = action else { return }
        if !hasOwnDeadline, let deadline = session.configuration.deadline {
            setDeadline(deadline, own: false)
        }
        Task { await self.run(attempt: attempt) }
    }

    func run(attempt: Int) async {
        var prepared: PreparedRequest
        do {
            prepared = try await builder(attempt)
            let original = prepared.urlRequest
            prepared.urlRequest = try await adapt(original)
            try FinalRequestCheck.validate(prepared.urlRequest)
            if prepared.urlRequest != original {
                for monitor in session.configuration.eventMonitors {
                    monitor.requestDidAdapt(id, from: original, to: prepared.urlRequest)
                }
            }
        } catch {
            finish(attempt: attempt, error: NetworkError.building(error))
            return
        }
        do {
            try BodylessMethodRule.check(prepared.urlRequest, body: prepared.body)
        } catch {
            prepared.removeTemporaryFiles()  // a multipart body built in a file for this attempt
            finish(attempt: attempt, error: error)
            return
        }
        let idleTimeout = IdleTimeout.watched(prepared.urlRequest.timeoutInterval)
        if let idleTimeout { prepared.urlRequest.timeoutInterval = IdleTimeout.forURLSession(idleTimeout) }
        let task = state.withLock { state -> URLSessionTask? in
            guard state.lifecycle.requestBuilt(attempt: attempt) == .resumeTask else { return nil }
            let task: URLSessionTask
            let atCompletion = idleTimeout == nil && deliversAtCompletion(prepared, state: state)
            if atCompletion {
                task = prepared.makeTask(in: session.urlSession) { data, response, error in
                    self.taskDidFinish(data: data, response: response, error: error, attempt: attempt)
                }
            } else {
                task = prepared.makeTask(in: session.urlSession)
            }
            // Also for completion-handler tasks: redirects and authentication challenges need it.
            session.router.register(task, handler: self, attempt: attempt, deliversAtCompletion: atCompletion)
            state.prepared = prepared
            state.response = nil
            state.data = Data()
            state.writesToSink = false
            state.sinkFailure = nil
            state.progress = nil
            state.notifiedProgress = nil
            state.bytesSent = 0
            state.bytesReceived = 0
            state.task = task
            return task
        }
        guard let task else {
            prepared.removeTemporaryFiles()
            return
        }
        for monitor in session.configuration.eventMonitors {
            monitor.requestDidStart(id, request: prepared.urlRequest, attempt: attempt)
        }
        if let idleTimeout { watchIdleTimeout(idleTimeout, task: task, attempt: attempt) }
        task.resume()
    }

    /// Whether this attempt can take its response in one completion handler instead of the
    /// session delegate's task events: nothing watches it as it moves (no body sink, no
    /// progress observer, no event monitor) and its body is not a stream (which may need a new
    /// stream mid-request). corelibs URLSession hands every delegate event to the delegate's
    /// `OperationQueue`, which costs about as much as the rest of a small request and, for
    /// uploads, one operation per 16-64 KiB chunk sent; the completion handler path skips that
    /// (uploads from a file ran 2-3 times faster). Redirects still go to the session delegate.
    /// A progress observer added once such a task runs hears only the final value.
    private func deliversAtCompletion(_ prepared: PreparedRequest, state: State) -> Bool {
        sink == nil && state.progressObservers.isEmpty && session.configuration.eventMonitors.isEmpty
            && prepared.urlRequest.httpBodyStream == nil
    }

    /// Runs the session's adapters, then the request's, in order.
    private func adapt(_ request: URLRequest) async throws(NetworkError) -> URLRequest {
        let chain = AdapterChain(session.configuration.adapters + state.withLock { $0.adapters })
        do {
            return try await chain.adapt(request)
        } catch {
            throw NetworkError(
                .requestBuildFailed, failureReason: "An adapter failed: \(error)", underlyingError: error,
                request: request)
        }
    }

    /// Adds a request-level adapter (applies to attempts not yet built).
    func addAdapter(_ adapter: any RequestAdapter) {
        state.withLock { $0.adapters.append(adapter) }
    }

    /// Adds a request-level retrier (asked before the session's).
    func addRetrier(_ retrier: any RequestRetrier) {
        state.withLock { $0.retriers.append(retrier) }
    }

    /// Asks the retriers about a failed attempt; retries after the delay or finishes.
    func evaluateFailure(_ failure: NetworkError, attempt: Int) async {
        let (retriers, retryCount, request, response) = state.withLock { state in
            (
                state.retriers + (session.configuration.retrier.map { [$0] } ?? []), state.retryCount,
                state.prepared?.urlRequest, state.response
            )
        }
        guard !retriers.isEmpty, !failure.isCancelled else {
            finish(attempt: attempt, error: failure)
            return
        }
        let context = RetryContext(
            request: request, response: response, error: failure, retryCount: retryCount)
        guard case .retry(let delay) = await RetrierChain(retriers).decide(context) else {
            finish(attempt: attempt, error: failure)
            return
        }
        let (retrying, task) = state.withLock { state -> (Bool, URLSessionTask?) in
            guard state.lifecycle.beginRetry(attempt: attempt) else { return (false, nil) }
            state.retryCount += 1
            return (true, state.task)
        }
        guard retrying else { return }
        for monitor in session.configuration.eventMonitors {
            monitor.requestWillRetry(id, after: failure, delay: delay, retryCount: retryCount + 1)
        }
        if let task { session.router.unregister(task) }
        let prepared = state.withLock { $0.prepared }
        prepared?.removeTemporaryFiles()
        if delay > 0 {
            let wait = Task<Void, Never> { await sleep(seconds: delay) }
            state.withLock { $0.retryWait = wait }
            await wait.value
        }
        let next = state.withLock { state in
            state.retryWait = nil
            return state.lifecycle.retryDelayElapsed()
        }
        guard case .buildRequest(let nextAttempt) = next else { return }
        await run(attempt: nextAttempt)
    }

    /// Fails the request with a timeout once `seconds` have passed, whatever its attempts are
    /// doing (corelibs ignores `timeoutIntervalForResource`, and its idle timeout never fires on a
    /// slow trickle). Replaces an earlier deadline; one the request set itself (`own`) is never
    /// replaced by the session's default.
    func setDeadline(_ seconds: TimeInterval, own: Bool = true) {
        let timer = Task { [weak self] in
            await sleep(seconds: seconds)
            guard !Task.isCancelled else { return }
            self?.expire(after: seconds)
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            defer { state.deadlineTimer = timer }
            if own { state.hasOwnDeadline = true }
            return state.deadlineTimer
        }
        previous?.cancel()
    }

    /// Watches an attempt whose idle timeout URLSession cannot enforce precisely (see
    /// ``IdleTimeout``); the attempt's task reports its events through the session delegate so
    /// that every byte counts as activity. When the attempt stays idle for `seconds`, its task is
    /// dropped and the attempt fails as URLSession's own timeout would (`URLError.timedOut`,
    /// retryable). The watch ends by itself with the attempt.
    private func watchIdleTimeout(_ seconds: TimeInterval, task: URLSessionTask, attempt: Int) {
        Task { [weak self] in
            var timeout = IdleTimeout(seconds: seconds, now: Date())
            while true {
                await sleep(seconds: timeout.checkInterval)
                guard let self else { return }
                let activity = self.state.withLock { state -> IdleTimeout.Activity? in
                    guard state.lifecycle.shouldEvaluateCompletion(attempt: attempt) else { return nil }
                    return IdleTimeout.Activity(
                        hasResponse: state.response != nil, bytesReceived: state.bytesReceived,
                        bytesSent: state.bytesSent)
                }
                guard let activity else { return }
                if timeout.check(activity, now: Date()) {
                    self.session.router.unregister(task)
                    task.cancel()
                    self.taskDidComplete(error: URLError(.timedOut), attempt: attempt)
                    return
                }
            }
        }
    }

    private func expire(after seconds: TimeInterval) {
        let (action, task, request) = state.withLock { state in
            (state.lifecycle.expire(), state.task, state.prepared?.urlRequest)
        }
        guard action != .none else { return }
        if action == .cancelTaskAndDeliver, let task {
            session.router.unregister(task)
            task.cancel()
        }
        let error = NetworkError(
            .transport, failureReason: "The request did not finish within its deadline of \(seconds) s.",
            underlyingError: URLError(.timedOut), request: request)
        recordOutcome(error: error, cancelled: false)
    }

    /// Cancels the request. Handlers and waiters receive a ``NetworkError/Kind/cancelled`` error.
    func cancel() {
        let (action, task) = state.withLock { state in
            (state.lifecycle.cancel(), state.task)
        }
        switch action {
        case .none:
            return
        case .cancelTaskAndDeliver:
            if let task {
                session.router.unregister(task)
                task.cancel()
            }
            recordOutcome(error: nil, cancelled: true)
        case .deliver:
            recordOutcome(error: nil, cancelled: true)
        }
    }

    /// Ends the current attempt and starts the next one at once (no delay), e.g. when a resumed
    /// download must start again from zero. The old task is cancelled and its events ignored.
    func restartAttemptNow(after attempt: Int) {
        let next = state.withLock { state -> (Int, URLSessionTask?, PreparedRequest?)? in
            guard state.lifecycle.beginRetry(attempt: attempt),
                case .buildRequest(let next) = state.lifecycle.retryDelayElapsed()
            else { return nil }
            let old = (state.task, state.prepared)
            state.task = nil
            return (next, old.0, old.1)
        }
        guard let (nextAttempt, oldTask, oldPrepared) = next else { return }
        if let oldTask {
            session.router.unregister(oldTask)
            oldTask.cancel()
        }
        oldPrepared?.removeTemporaryFiles()
        Task { await self.run(attempt: nextAttempt) }
    }

    /// Ends attempt `attempt` with `error` (nil = success) if it is still the current one.
    func finish(attempt: Int, error: NetworkError?) {
        let finishing = state.withLock { $0.lifecycle.finish(attempt: attempt) == .deliver }
        guard finishing else { return }
        recordOutcome(error: error, cancelled: false)
    }

    /// Records the outcome of a request whose lifecycle just ended, after the sink and temporary
    /// files are settled, and schedules its delivery in the same locked step.
    private func recordOutcome(error: NetworkError?, cancelled: Bool) {
        let (prepared, task, attempt, request, response) = state.withLock { state in
            (state.prepared, state.task, state.lifecycle.attempt, state.prepared?.urlRequest, state.response)
        }
        var error = cancelled ? NetworkError.cancelled(request: request, response: response) : error
        if let sink, let failure = sink.close(attempt: attempt, error: error) {
            error = failure
        }
        prepared?.removeTemporaryFiles()
        if let task { session.router.unregister(task) }

        typealias Delivery = (RequestOutcome, [@Sendable (RequestOutcome) -> Void], Bool)
        let (outcome, waiters, drain) = state.withLock { state -> Delivery in
            let duration = state.startedAt.map { Date().timeIntervalSince($0) } ?? 0
            let outcome = RequestOutcome(
                request: state.prepared?.urlRequest,
                response: state.response,
                data: state.response == nil && state.data.isEmpty ? nil : state.data,
                error: error,
                attempt: state.lifecycle.attempt,
                duration: duration)
            state.outcome = outcome
            state.deadlineTimer?.cancel()
            state.deadlineTimer = nil
            state.retryWait?.cancel()
            state.retryWait = nil
            let waiters = state.waiters
            state.waiters = []
            let drain = !state.isDraining && state.delivered < state.links.count
            if drain { state.isDraining = true }
            return (outcome, waiters, drain)
        }
        reportFinish(outcome)
        for waiter in waiters { waiter(outcome) }
        if drain { startDraining() }
    }

    private func reportFinish(_ outcome: RequestOutcome) {
        let monitors = session.configuration.eventMonitors
        guard !monitors.isEmpty else { return }
        let (sent, received) = state.withLock { state in
            (max(state.bytesSent, state.task?.countOfBytesSent ?? 0), state.bytesReceived)
        }
        let metrics = RequestMetrics(
            requestID: id, request: outcome.request, response: outcome.response, error: outcome.error,
            attempts: outcome.attempt, duration: outcome.duration, bytesSent: sent, bytesReceived: received)
        for monitor in monitors { monitor.requestDidFinish(metrics) }
    }
}
