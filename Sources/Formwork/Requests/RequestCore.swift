import Foundation

/// The engine behind every request object: lifecycle, transport task, body, progress,
/// validation and the ordered delivery of the outcome to handlers and async waiters.
///
/// All mutable state sits in one struct behind one lock. Every rule (attempts, retries, retry
/// waits, deadlines, cancellation, reloads, the exactly-once ordered delivery to handlers) is
/// decided by `RequestStateMachine`, held in that state: this class feeds it events and
/// performs the actions it returns, outside the lock. The values of a run live in the machine's
/// states, never beside it: an attempt's request, task, response, body, byte counts and progress
/// (`RequestAttempt`, so a new attempt starts empty by construction), the retry wait, the
/// deadline and its timer, and the outcome. What the sink or the cache answer reaches the machine
/// with the event it decides on.
final class RequestCore: Sendable {
    /// One link of the handler chain: runs once per attempt with that attempt's outcome.
    typealias Link = @Sendable (RequestOutcome) async -> Void
    /// Prepares what an attempt sends. Throws ``NetworkError`` (untyped in the function type:
    /// typed-throws function types need the iOS 18 / macOS 15 runtime).
    typealias Builder = @Sendable (_ attempt: Int) async throws -> PreparedRequest
    /// Prepares what an attempt sends, without suspending (a form read into a request).
    typealias ImmediateBuilder = @Sendable (_ attempt: Int) throws -> PreparedRequest

    /// How an attempt's request is prepared.
    enum Build: Sendable {
        /// Without suspending: with no adapter, the attempt is built and started on the thread
        /// that asks for it, with no task of its own.
        case immediate(ImmediateBuilder)
        /// With work that may suspend (a multipart body written to a file): always in a task.
        case suspending(Builder)
    }

    /// Which direction progress reports follow.
    enum ProgressDirection: Sendable {
        /// Bytes received (data requests and downloads).
        case download
        /// Bytes sent (uploads).
        case upload
    }

    struct State {
        var id: UUID?
        /// Every rule of the request; the fields below are the values its actions work on.
        var machine = RequestStateMachine()
        /// When the current run started, by the owner's clock: only the outcome's duration reads
        /// it, no rule of the machine.
        var startedAt: Date?
        var validation = ValidationRules()
        var adapters: [any RequestAdapter] = []
        var retriers: [any RequestRetrier] = []
        var progressObservers: [ProgressObserver] = []
        /// The handler chain, in the order chained (the machine says which one runs next).
        var links: [Link] = []
        var attemptStartHandlers: [@MainActor @Sendable () -> Void] = []
        /// Tasks that await the outcome (`outcome()`), from before they start the request until
        /// they have it.
        var awaitingTasks = 0
        /// A task waiting for the outcome that runs a transport's completion work when handed
        /// some (see ``RequestCore/waitForOutcome()``); taken when used or at the outcome.
        var waitingTask: OutcomeWait?
        /// The other tasks waiting for the outcome (one request awaited by several), taken at the
        /// outcome.
        var otherWaits: [OutcomeWait] = []
        /// Completion work handed over before an awaiting task began to wait: its next wait runs it.
        var pendingWork: (@Sendable () -> Void)?

        /// Feeds the machine one event. A reload it starts also starts the new run's clock in the
        /// same locked step (the machine itself dropped the previous run's outcome and attempt).
        mutating func event(_ apply: (inout RequestStateMachine) -> RequestStateMachine.Action)
            -> RequestStateMachine.Action
        {
            let action = apply(&machine)
            if case .reload = action { startedAt = Date() }
            return action
        }
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
    /// The session that runs the request (see ``RequestHost``).
    let host: any RequestHost
    /// The session's settings, read once.
    let settings: EngineSettings
    /// Where the body goes instead of memory, for downloads.
    let sink: (any ResponseSink)?
    /// Which bytes progress counts.
    let progressDirection: ProgressDirection
    private let build: Build
    let state = Protected(State())

    /// The most body bytes kept in memory for a response the sink declined (an error body).
    static let errorBodyLimit = 1 << 20

    init(
        host: any RequestHost, sink: (any ResponseSink)? = nil, progress: ProgressDirection = .download,
        build: Build
    ) {
        self.host = host
        self.settings = host.settings
        self.sink = sink
        self.progressDirection = progress
        self.build = build
    }

    convenience init(
        host: any RequestHost, sink: (any ResponseSink)? = nil, progress: ProgressDirection = .download,
        builder: @escaping Builder
    ) {
        self.init(host: host, sink: sink, progress: progress, build: .suspending(builder))
    }

    // MARK: Reading

    /// The last `URLRequest` sent (or being sent).
    var request: URLRequest? { state.withLock { $0.machine.latest?.prepared.urlRequest } }
    /// The last HTTP response received.
    var response: HTTPURLResponse? { state.withLock { $0.machine.latest?.response }?.httpURLResponse }
    /// The coarse phase of the request's state machine.
    var lifecycleState: RequestStateMachine.Phase { state.withLock { $0.machine.phase } }
    /// The transport task of the current attempt.
    var task: (any TransportTask)? { state.withLock { $0.machine.latest?.task } }
    /// The latest progress of the current attempt, if any bytes moved yet.
    var progress: TransferProgress? { state.withLock { $0.machine.latest?.progress } }

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
        // The one hop that runs after the caller's statement, on the caller's actor.
        Task {
            _ = isolation
            self.start()
        }
    }

    /// Starts the first attempt now (idempotent). The URLRequest is built off the caller's thread.
    func start() {
        guard let attempt = beginFirstAttempt() else { return }
        perform(.buildRequest(attempt: attempt))
    }

    /// Feeds the machine its `start` event (idempotent) and, when that begins the first attempt,
    /// starts the session's deadline.
    /// - Returns: The attempt the caller must now build with `run(attempt:)`, or nil if the
    ///   request had already started.
    func beginFirstAttempt() -> Int? {
        let (action, hasOwnDeadline) = state.withLock { state -> (RequestStateMachine.Action, Bool) in
            let action = state.event { $0.start() }
            if case .buildRequest = action { state.startedAt = Date() }
            return (action, state.machine.deadline.isOwn)
        }
        guard case .buildRequest(let attempt) = action else { return nil }
        if !hasOwnDeadline, let deadline = settings.deadline {
            setDeadline(deadline, own: false)
        }
        return attempt
    }

    func run(attempt: Int) async {
        guard admit(attempt: attempt) else { return }
        var prepared: PreparedRequest
        do {
            switch build {
            case .immediate(let make): prepared = try make(attempt)
            case .suspending(let make): prepared = try await make(attempt)
            }
            let adapters = settings.adapters + state.withLock { $0.adapters }
            // With no adapter the request stays as built: no chain to run, nothing to compare.
            let original = prepared.urlRequest
            if adapters.isEmpty {
                if !prepared.headersChecked { try FinalRequestCheck.validate(original) }
            } else {
                // Adapters change Formwork's own request value; its headers are checked as they left
                // them, then it becomes the URLRequest to send.
                let adapted = try await adapt(original, with: adapters)
                prepared.urlRequest = try FinalRequestCheck.validate(adapted)
                if prepared.urlRequest != original {
                    for monitor in settings.eventMonitors {
                        monitor.requestDidAdapt(id, from: original, to: prepared.urlRequest)
                    }
                }
            }
        } catch {
            buildFailed(.building(error), attempt: attempt)
            return
        }
        built(prepared, attempt: attempt)
    }

    /// Builds `attempt` and starts its task on the calling thread, when nothing on the way can
    /// suspend: an immediate builder and no adapter (adapters are async app code).
    /// - Returns: `false` when the attempt must be built in a task (see ``run(attempt:)``).
    private func runWithoutSuspending(attempt: Int) -> Bool {
        guard case .immediate(let make) = build, settings.adapters.isEmpty,
            state.withLock({ $0.adapters.isEmpty })
        else { return false }
        guard admit(attempt: attempt) else { return true }
        let prepared: PreparedRequest
        do {
            prepared = try make(attempt)
            // A request whose headers were all checked as it was built is not checked again.
            if !prepared.headersChecked { try FinalRequestCheck.validate(prepared.urlRequest) }
        } catch {
            buildFailed(.building(error), attempt: attempt)
            return true
        }
        built(prepared, attempt: attempt)
        return true
    }

    /// Counts the request as running before its attempt is built, or fails the attempt when the
    /// session runs nothing new. An invalidated session starts nothing new; a request it runs
    /// already goes on. Counted in the locked step that sees the attempt still to build: a
    /// request cancelled before this is never counted (nothing would uncount it).
    /// - Returns: Whether the attempt may be built.
    private func admit(attempt: Int) -> Bool {
        let refusal = state.withLock { state -> NetworkError? in
            guard state.machine.phase == .adapting, state.machine.attempt == attempt else { return nil }
            return host.admit(self)
        }
        guard let refusal else { return true }
        buildFailed(refusal, attempt: attempt)
        return false
    }

    /// The attempt could not be built (or was refused): the machine decides what follows.
    private func buildFailed(_ error: NetworkError, attempt: Int) {
        perform(state.withLock { $0.event { $0.adaptFailed(attempt: attempt) } }, reported: error)
    }

    /// The attempt's request is built and checked: after the body rule and the cache's look, the
    /// machine takes it (and asks for its task).
    private func built(_ prepared: consuming PreparedRequest, attempt: Int) {
        do {
            try BodylessMethodRule.check(prepared.urlRequest, body: prepared.body)
        } catch {
            prepared.removeTemporaryFiles()  // a multipart body built in a file for this attempt
            buildFailed(error, attempt: attempt)
            return
        }
        let asksServer = asksServer(prepared.cache, attempt: attempt)
        prepared.cache?.asksServer = asksServer
        perform(
            state.withLock { $0.event { $0.adapted(attempt: attempt, prepared: prepared) } }, built: prepared)
    }

    /// Makes the task of `attempt` (or joins an identical request's) through the session's layers,
    /// then starts it. The layers and the transport are called outside the request's lock (they
    /// take locks of their own, and may report a joined exchange's events at once); the task is
    /// kept in the locked step that finds the attempt still running without one, so a cancel
    /// that follows always finds it. When the attempt ended meanwhile (a cancel, a deadline), the
    /// task is cancelled before it ever starts. The task comes from the session's layers (cache,
    /// coalescing, transport), watched for its idle timeout when the transport does not enforce
    /// it.
    private func startTask(of attempt: Int) {
        // The attempt's values leave the lock only to read their constant `prepared`.
        typealias Plan = (values: RequestAttempt, mayDeliverAtCompletion: Bool, id: UUID?)
        let plan = state.withLock { state -> Plan? in
            guard state.machine.isRunning(attempt: attempt), let values = state.machine.latest,
                values.task == nil
            else { return nil }
            if !settings.eventMonitors.isEmpty, state.id == nil { state.id = UUID() }
            return (values, deliversAtCompletion(values, state: state), state.id)
        }
        guard let plan else { return }
        // Asks the transport, so outside the lock.
        let idleTimeout = IdleTimeout.watched(
            plan.values.prepared.urlRequest.timeoutInterval, enforcedBy: host.transport)
        let atCompletion = idleTimeout == nil && plan.mayDeliverAtCompletion
        let task = makeTask(plan.values, atCompletion: atCompletion, id: plan.id)
        let kept = state.withLock { state -> Bool in
            guard state.machine.isRunning(attempt: attempt), state.machine.latest?.task == nil else {
                return false
            }
            state.machine.updateRunning(attempt: attempt) { $0.task = task }
            return true
        }
        guard kept else {
            // The attempt ended while its task was made: the task never starts.
            task.cancel()
            return
        }
        if let idleTimeout { watchIdleTimeout(idleTimeout, attempt: attempt) }
        task.resume()
    }

    /// Whether this attempt's exchange may report its response only at its end (see
    /// ``TransportRequest/isObserved``): nothing watches it as it moves (no body sink, no
    /// progress observer, no event monitor) and its body is not a stream (which may need a new
    /// stream mid-request). corelibs URLSession hands every delegate event to the delegate's
    /// `OperationQueue`, which costs about as much as the rest of a small request and, for
    /// uploads, one operation per 16-64 KiB chunk sent; its completion handler path skips that
    /// (uploads from a file ran 2-3 times faster). A progress observer added once such an
    /// exchange runs hears only the final value.
    private func deliversAtCompletion(_ values: RequestAttempt, state: State) -> Bool {
        // Reads the attempt's request in place (passing `prepared` on would copy it).
        sink == nil && state.progressObservers.isEmpty && settings.eventMonitors.isEmpty
            && values.prepared.urlRequest.httpBodyStream == nil
            && (values.prepared.redirectPolicy ?? settings.redirectPolicy).followsAll
    }

    /// Runs `adapters` (the session's, then the request's) in order on Formwork's own request
    /// value made from `request` (see ``OutgoingRequest``).
    private func adapt(_ request: URLRequest, with adapters: [any RequestAdapter]) async throws(NetworkError)
        -> OutgoingRequest
    {
        do {
            return try await AdapterChain(adapters).adapt(OutgoingRequest(request))
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

    /// The retriers that decide about a failed attempt: the request's, then the session's.
    private func retriers() -> [any RequestRetrier] {
        state.withLock { $0.retriers } + settings.retriers
    }

    /// Asks the retriers about the failure of `attempt`, reports their decision to the machine
    /// and performs what it returns: a retry after its wait, or the end with `failure`.
    func askRetriers(_ retriers: [any RequestRetrier], about failure: NetworkError, attempt: Int) async {
        let (retryCount, request, response) = state.withLock { state in
            (
                state.machine.retryCount, state.machine.latest?.prepared.urlRequest,
                state.machine.latest?.response
            )
        }
        let context = RetryContext(
            request: request, response: response?.httpURLResponse, error: failure, retryCount: retryCount)
        guard case .retry(let delay) = await RetrierChain(retriers).decide(context) else {
            perform(state.withLock { $0.event { $0.retryNotNeeded(attempt: attempt) } }, reported: failure)
            return
        }
        let (action, retries) = state.withLock { state in
            (state.event { $0.retryDecided(attempt: attempt, delay: delay) }, state.machine.retryCount)
        }
        if case .scheduleRetry = action {
            for monitor in settings.eventMonitors {
                monitor.requestWillRetry(id, after: failure, delay: delay, retryCount: retries)
            }
        }
        perform(action)
    }

    /// Performs a `scheduleRetry` of the machine: gives up the failed attempt's task and its
    /// temporary files, then waits (cancellable by the request's end) and runs the next attempt
    /// if the machine says so.
    private func scheduleNextAttempt(after wait: Double, attempt: Int) {
        let (task, prepared) = state.withLock { ($0.machine.takeTask(), $0.machine.latest?.prepared) }
        if let task { releaseTask(task, cancelling: false) }
        prepared?.removeTemporaryFiles()
        Task { await self.waitAndRunNextAttempt(wait: wait, after: attempt) }
    }

    private func waitAndRunNextAttempt(wait: Double, after attempt: Int) async {
        if wait > 0 {
            // A task of its own so that the request's end can cancel the wait (the machine's
            // `deliver` hands it back), kept only while the machine still waits: a request that
            // ended before the wait began must not sleep on holding the request.
            let sleeper = Task<Void, Never> { await sleep(seconds: wait) }
            perform(state.withLock { $0.event { $0.retryWaitStarted(attempt: attempt, timer: sleeper) } })
            await sleeper.value
        }
        let next = state.withLock { $0.event { $0.retryWaitEnded(attempt: attempt) } }
        guard case .buildRequest(let nextAttempt) = next else { return }
        await run(attempt: nextAttempt)
    }

    /// Fails the request with a timeout once `seconds` have passed, whatever its attempts are
    /// doing (corelibs ignores `timeoutIntervalForResource`, and its idle timeout never fires on a
    /// slow trickle). Replaces an earlier deadline; one the request set itself (`own`) is never
    /// replaced by the session's default.
    func setDeadline(_ seconds: TimeInterval, own: Bool = true) {
        // The clock lives outside the machine: this timer turns the time into its event.
        let timer = Task { [weak self] in
            await sleep(seconds: seconds)
            guard !Task.isCancelled else { return }
            self?.expire(after: seconds)
        }
        perform(state.withLock { $0.event { $0.deadlineSet(seconds: seconds, own: own, timer: timer) } })
    }

    /// Watches an attempt whose idle timeout its transport does not enforce precisely (see
    /// ``IdleTimeout``; one ``IdleWatchdog`` polls them all); the attempt's exchange reports every
    /// event as it happens, so that every byte counts as activity. When the attempt stays idle for
    /// `seconds`, the machine hears of it (its task is dropped and the attempt fails as
    /// URLSession's own timeout would: `URLError.timedOut`, retryable). The watch ends by itself
    /// with the attempt, at the watchdog's next check. It holds the request strongly until then
    /// (it holds the task, whose events hold the request, anyway): a weak reference would give
    /// every request a side table and make each of its retains and releases take the slow path.
    private func watchIdleTimeout(_ seconds: TimeInterval, attempt: Int) {
        IdleWatchdog.shared.watch(seconds: seconds) {
            self.state.withLock { state -> IdleTimeout.Activity? in
                guard state.machine.isRunning(attempt: attempt), let values = state.machine.latest else {
                    return nil
                }
                return IdleTimeout.Activity(
                    hasResponse: values.response != nil, bytesReceived: values.bytesReceived,
                    bytesSent: values.bytesSent)
            }
        } expire: {
            self.perform(self.state.withLock { $0.event { $0.idleTimedOut(attempt: attempt) } })
        }
    }

    private func expire(after seconds: TimeInterval) {
        let (action, request) = state.withLock { state in
            (state.event { $0.deadlinePassed() }, state.machine.latest?.prepared.urlRequest)
        }
        let error = NetworkError(
            .transport, failureReason: "The request did not finish within its deadline of \(seconds) s.",
            underlyingError: URLError(.timedOut), request: request)
        perform(action, reported: error)
    }

    /// Cancels the request. Handlers and waiters receive a ``NetworkError/Kind/cancelled`` error.
    func cancel() {
        perform(state.withLock { $0.event { $0.cancel() } })
    }

    /// Ends the current attempt and starts the next one at once (no delay), e.g. when a resumed
    /// download must start again from zero. The old task is cancelled and its events ignored.
    func restartAttemptNow(after attempt: Int) {
        perform(state.withLock { $0.event { $0.restartRequested(attempt: attempt) } })
    }

    /// Performs what the machine asked for, outside the lock.
    /// - Parameters:
    ///   - action: The machine's answer to the event just fed to it.
    ///   - reported: The failure the event carried (nil for a success), for an action that ends
    ///     the request with it or asks the retriers about it.
    ///   - built: The request just built, for an action that discards it (it went stale).
    func perform(
        _ action: RequestStateMachine.Action, reported: NetworkError? = nil, built: PreparedRequest? = nil
    ) {
        switch action {
        case .none, .ignore, .record:
            // Nothing to do: the event was stale, or its data is recorded in the machine's state.
            return
        case .runHandler(let index):
            runHandlers(from: index)
        case .cancelTimer(let timer):
            timer.cancel()
        case .interruptAttempt(let attempt, let interruption):
            let task = state.withLock { $0.machine.updateRunning(attempt: attempt) { $0.task } ?? nil }
            if let task { releaseTask(task, cancelling: true) }
            // A cancelled task reports nothing more: the attempt ends here, with the failure the
            // transport's own timeout would give, or the sink's error (kept by the machine).
            let error = URLError(interruption == .idleTimeout ? .timedOut : .cancelled)
            taskDidComplete(error: error, attempt: attempt)
        case .scheduleRetry(let wait, let attempt):
            scheduleNextAttempt(after: wait, attempt: attempt)
        case .discardRequest:
            built?.removeTemporaryFiles()  // a multipart body built in a file for a stale attempt
        case .createAndResumeTask(let attempt):
            startTask(of: attempt)
        case .buildRequest(let attempt):
            // A form read into a request with no adapter is built and sent here, with no task of
            // its own. Adapters (async app code) and bodies made on disk run in a task, off the
            // caller's thread; a request that is awaited builds in its waiting task instead (see
            // `outcome()`).
            if runWithoutSuspending(attempt: attempt) { return }
            Task { await self.run(attempt: attempt) }
        case .cancelTaskAndBuildRequest(let attempt):
            let (oldTask, oldPrepared) = state.withLock { state in
                (state.machine.takeTask(), state.machine.latest?.prepared)
            }
            if let oldTask { releaseTask(oldTask, cancelling: true) }
            oldPrepared?.removeTemporaryFiles()
            // As for `.buildRequest`: the next attempt is built off the delegate queue.
            Task { await self.run(attempt: attempt) }
        case .askRetriers(let attempt):
            let retriers = retriers()
            guard let failure = reported, !retriers.isEmpty else {
                perform(
                    state.withLock { $0.event { $0.retryNotNeeded(attempt: attempt) } }, reported: reported)
                return
            }
            // Retriers are async app code; the task event that failed must not wait for them.
            Task { await self.askRetriers(retriers, about: failure, attempt: attempt) }
        case .deliver(let ending, let cancellingTask, let deadline, let retryWait):
            // Nothing sleeps on holding a request that ended.
            deadline?.cancel()
            retryWait?.cancel()
            recordOutcome(ending, cancellingTask: cancellingTask, reported: reported)
        case .startDraining:
            // The drain asks the machine for its first handler, as it does after each one.
            perform(state.withLock { $0.event { $0.handlerFinished() } })
        case .reload(let attempt, let background):
            // A background refresh starts with no UI hooks: the previous answer is on screen.
            let (handlers, deadline) = state.withLock {
                (background ? [] : $0.attemptStartHandlers, $0.machine.deadline)
            }
            // The previous run's deadline ended with its outcome: this run gets its own.
            if let seconds = deadline.seconds { setDeadline(seconds, own: deadline.isOwn) }
            // The one hop to the main actor for the UI hooks of a later attempt, then the attempt.
            Task {
                await MainActor.run {
                    for handler in handlers { handler() }
                }
                await self.run(attempt: attempt)
            }
        }
    }

    /// Records the outcome of a request the machine just ended, after the sink and temporary
    /// files are settled and the event monitors were told, and tells the machine in the same
    /// locked step as it takes the waiting tasks (which may start the drain of handlers, or a
    /// reload that waited for this outcome).
    private func recordOutcome(
        _ ending: RequestStateMachine.Ending, cancellingTask: Bool, reported: NetworkError?
    ) {
        // The request lets go of its task here: the task holds the request's events, which hold
        // the request, so keeping it would keep every finished request alive (a retain cycle).
        let (values, task, attempt, response) = state.withLock { state in
            (
                state.machine.latest, state.machine.takeTask(), state.machine.attempt,
                state.machine.latest?.response
            )
        }
        let request = values?.prepared.urlRequest
        if let task { releaseTask(task, cancelling: cancellingTask) }
        var error: NetworkError?
        switch ending {
        case .reported, .deadlineExceeded: error = reported
        case .cancelled: error = NetworkError.cancelled(request: request, response: response?.httpURLResponse)
        }
        if let sink, let failure = sink.close(attempt: attempt, error: error) {
            error = failure
        }
        if let values, !values.prepared.temporaryFiles.isEmpty { values.prepared.removeTemporaryFiles() }

        let outcome = state.withLock { state in
            let last = state.machine.latest
            return RequestOutcome(
                request: last?.prepared.urlRequest,
                head: last?.response,
                data: last.flatMap { $0.response == nil && $0.body.isEmpty ? nil : $0.body },
                error: error,
                attempt: state.machine.attempt,
                duration: state.startedAt.map { Date().timeIntervalSince($0) } ?? 0,
                cache: last?.delivery ?? .network,
                isBackgroundRefresh: state.machine.isBackgroundRefresh)
        }
        // The monitors are told before the machine has the outcome: until then no task that awaits
        // the request and no handler gets it (the machine holds both back, as it holds a reload).
        reportFinish(outcome)
        host.requestEnded(self)
        typealias Delivery = (OutcomeWait?, [OutcomeWait], RequestStateMachine.Action)
        let (waitingTask, otherWaits, next) = state.withLock { state -> Delivery in
            defer {
                state.waitingTask = nil
                state.otherWaits = []
            }
            return (state.waitingTask, state.otherWaits, state.event { $0.outcomeRecorded(outcome) })
        }
        waitingTask?.resume(returning: .outcome(outcome))
        for wait in otherWaits { wait.resume(returning: .outcome(outcome)) }
        perform(next)
    }

    private func reportFinish(_ outcome: RequestOutcome) {
        let monitors = settings.eventMonitors
        guard !monitors.isEmpty else { return }
        let (sent, received) = state.withLock { state in
            (state.machine.latest?.bytesSent ?? 0, state.machine.latest?.bytesReceived ?? 0)
        }
        let metrics = RequestMetrics(
            requestID: id, request: outcome.request, response: outcome.response, error: outcome.error,
            attempts: outcome.attempt, duration: outcome.duration, bytesSent: sent, bytesReceived: received,
            cache: outcome.cache,
            httpVersion: outcome.cache.source == .network ? outcome.head?.httpVersion : nil)
        for monitor in monitors { monitor.requestDidFinish(metrics) }
    }
}
