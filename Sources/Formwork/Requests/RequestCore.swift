import Foundation

/// The engine behind every request object: lifecycle, URLSession task, body, validation and the
/// ordered delivery of the outcome to handlers and async waiters.
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
    /// Builds the `URLRequest` for an attempt.
    typealias Builder = @Sendable (_ attempt: Int) async throws(NetworkError) -> URLRequest
    /// Creates the (not yet resumed) URLSession task for a built request.
    typealias TaskFactory = @Sendable (URLSession, URLRequest) -> URLSessionTask

    private struct State {
        var lifecycle = RequestLifecycle()
        var startedAt: Date?
        var task: URLSessionTask?
        var request: URLRequest?
        var response: HTTPURLResponse?
        var data = Data()
        var validation = ValidationRules()
        var outcome: RequestOutcome?
        var links: [Link] = []
        var delivered = 0
        var isDraining = false
        var restartPending = false
        var attemptStartHandlers: [@MainActor @Sendable () -> Void] = []
        var waiters: [@Sendable (RequestOutcome) -> Void] = []
    }

    /// A unique id, stable for the life of the request.
    let id = UUID()
    /// The session that runs the request.
    let session: Session
    private let builder: Builder
    private let makeTask: TaskFactory
    private let state = Protected(State())

    init(session: Session, builder: @escaping Builder, makeTask: @escaping TaskFactory) {
        self.session = session
        self.builder = builder
        self.makeTask = makeTask
    }

    // MARK: Reading

    /// The last `URLRequest` sent (or being sent).
    var request: URLRequest? { state.withLock { $0.request } }
    /// The last HTTP response received.
    var response: HTTPURLResponse? { state.withLock { $0.response } }
    /// The lifecycle state.
    var lifecycleState: RequestLifecycle.State { state.withLock { $0.lifecycle.state } }
    /// The URLSession task of the current attempt.
    var task: URLSessionTask? { state.withLock { $0.task } }

    // MARK: Configuring

    /// Changes the validation rules (applied when the response arrives).
    func updateValidation(_ change: (inout ValidationRules) -> Void) {
        state.withLock { change(&$0.validation) }
    }

    // MARK: Running

    /// Starts the first attempt asynchronously, so that anything chained on the same line
    /// (validators, handlers) is in place before the response can arrive.
    func start() {
        let action = state.withLock { state -> RequestLifecycle.StartAction in
            let action = state.lifecycle.start()
            if case .buildRequest = action { state.startedAt = Date() }
            return action
        }
        guard case .buildRequest(let attempt) = action else { return }
        Task { await self.run(attempt: attempt) }
    }

    private func run(attempt: Int) async {
        let built: URLRequest
        do {
            built = try await builder(attempt)
        } catch {
            finish(attempt: attempt, error: error)
            return
        }
        let task = state.withLock { state -> URLSessionTask? in
            guard state.lifecycle.requestBuilt(attempt: attempt) == .resumeTask else { return nil }
            let task = makeTask(session.urlSession, built)
            state.request = built
            state.response = nil
            state.data = Data()
            state.task = task
            session.router.register(task, handler: self, attempt: attempt)
            return task
        }
        task?.resume()
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
            task?.cancel()
            recordOutcome(transition: { _ in true }, error: nil, cancelled: true)
        case .deliver:
            recordOutcome(transition: { _ in true }, error: nil, cancelled: true)
        }
    }

    // MARK: Task events (called by the session's delegate router)

    func taskDidReceive(response: URLResponse, attempt: Int) {
        state.withLock { state in
            guard state.lifecycle.shouldEvaluateCompletion(attempt: attempt) else { return }
            state.response = response as? HTTPURLResponse
        }
    }

    func taskDidReceive(data: Data, attempt: Int) {
        state.withLock { state in
            guard state.lifecycle.shouldEvaluateCompletion(attempt: attempt) else { return }
            state.data.append(data)
        }
    }

    func taskDidComplete(error: (any Error)?, attempt: Int) {
        typealias Snapshot = (URLRequest?, HTTPURLResponse?, Data, ValidationRules)
        let snapshot = state.withLock { state -> Snapshot? in
            guard state.lifecycle.shouldEvaluateCompletion(attempt: attempt) else { return nil }
            return (state.request, state.response, state.data, state.validation)
        }
        guard let (request, response, data, rules) = snapshot else { return }
        let failure: NetworkError?
        if let error {
            failure = .transport(error, request: request, response: response, data: data)
        } else if let response {
            // Validators are app code: they run outside the lock.
            failure = rules.validate(
                request: request, response: response, data: data,
                defaultStatusCodes: session.configuration.acceptableStatusCodes)
        } else {
            failure = NetworkError(
                .transport, failureReason: "The server's response was not an HTTP response.",
                underlyingError: URLError(.badServerResponse), request: request, data: data)
        }
        finish(attempt: attempt, error: failure)
    }

    private func finish(attempt: Int, error: NetworkError?) {
        recordOutcome(
            transition: { $0.finish(attempt: attempt) == .deliver }, error: error, cancelled: false)
    }

    /// Applies the final transition, records the outcome and schedules its delivery, all in
    /// one locked step.
    private func recordOutcome(
        transition: (inout RequestLifecycle) -> Bool, error: NetworkError?, cancelled: Bool
    ) {
        typealias Delivery = (RequestOutcome, [@Sendable (RequestOutcome) -> Void], Bool, URLSessionTask?)
        let delivery = state.withLock { state -> Delivery? in
            guard transition(&state.lifecycle) else { return nil }
            let duration = state.startedAt.map { Date().timeIntervalSince($0) } ?? 0
            let outcome = RequestOutcome(
                request: state.request,
                response: state.response,
                data: state.response == nil && state.data.isEmpty ? nil : state.data,
                error: cancelled ? .cancelled(request: state.request, response: state.response) : error,
                attempt: state.lifecycle.attempt,
                duration: duration)
            state.outcome = outcome
            let waiters = state.waiters
            state.waiters = []
            let drain = !state.isDraining && state.delivered < state.links.count
            if drain { state.isDraining = true }
            return (outcome, waiters, drain, state.task)
        }
        guard let (outcome, waiters, drain, task) = delivery else { return }
        if let task { session.router.unregister(task) }
        for waiter in waiters { waiter(outcome) }
        if drain { startDraining() }
    }

    // MARK: Delivery

    /// Adds a link to the handler chain. If the request already finished, it runs soon, after
    /// every link chained before it.
    func append(_ link: @escaping Link) {
        let drain = state.withLock { state -> Bool in
            state.links.append(link)
            guard state.outcome != nil, !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if drain { startDraining() }
    }

    private func startDraining() {
        Task {
            while let (link, outcome) = self.nextLink() {
                await link(outcome)
            }
        }
    }

    private func nextLink() -> (Link, RequestOutcome)? {
        let next = state.withLock { state -> (Link, RequestOutcome)?? in
            guard let outcome = state.outcome, state.delivered < state.links.count else {
                state.isDraining = false
                let restart = state.restartPending
                state.restartPending = false
                return restart ? .some(nil) : nil
            }
            let link = state.links[state.delivered]
            state.delivered += 1
            return (link, outcome)
        }
        switch next {
        case .some(.some(let pair)):
            return pair
        case .some(.none):
            restart()
            return nil
        case .none:
            return nil
        }
    }

    // MARK: Reload

    /// Registers work to run on the main actor when a later attempt starts (a reload), such as a
    /// loading mask's `begin()`. The first attempt's work is done by whoever chains the hook.
    func onLaterAttemptStart(_ handler: @escaping @MainActor @Sendable () -> Void) {
        state.withLock { $0.attemptStartHandlers.append(handler) }
    }

    /// Sends a finished request again through the same chain: every link runs again with the new
    /// attempt's outcome. If the previous outcome is still being delivered, the restart waits for
    /// the delivery to finish. A cancelled request stays cancelled.
    func restart() {
        typealias Restart = (Int, [@MainActor @Sendable () -> Void])
        let restart = state.withLock { state -> Restart? in
            if state.isDraining {
                state.restartPending = state.lifecycle.state == .finished
                return nil
            }
            guard case .buildRequest(let attempt) = state.lifecycle.restart() else { return nil }
            state.outcome = nil
            state.delivered = 0
            state.task = nil
            state.response = nil
            state.data = Data()
            state.startedAt = Date()
            return (attempt, state.attemptStartHandlers)
        }
        guard let (attempt, handlers) = restart else { return }
        Task {
            await MainActor.run {
                for handler in handlers { handler() }
            }
            await self.run(attempt: attempt)
        }
    }

    /// Waits for the outcome without going through the main actor. Cancelling the waiting Swift
    /// `Task` cancels the request.
    func outcome() async -> RequestOutcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> RequestOutcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append { continuation.resume(returning: $0) }
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            self.cancel()
        }
    }
}
