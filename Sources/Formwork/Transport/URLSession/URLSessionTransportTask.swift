import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLSession task as a ``TransportTask``: it makes the `URLSession` task when resumed, and
/// the transport's delegate (``URLSessionTransportDelegate``) routes that task's callbacks here,
/// to the exchange's ``TransportEvents``, with what it learned along the way.
///
/// The `URLSession` task is made when the task is resumed, not before: corelibs makes a task on
/// libcurl's shared queue (`workQueue.sync`), which a session's ``DeliveryQueue`` may be holding
/// back, and ``URLSessionTransport/makeTask(for:events:)`` must be quick. While the network is
/// held back, making and resuming the task happen on one serial dispatch queue, never on a Swift
/// concurrency thread (see ``DeliveryQueue/isHoldingNetwork``).
///
/// One object per exchange, with one lock: the task's phase and what its callbacks learned.
final class URLSessionTransportTask: TransportTask {
    /// Where the `URLSession` task is made.
    enum MadeOn: Sendable {
        /// On the transport's `URLSession`.
        case shared(URLSession)
        /// On a `URLSession` of its own, with the configuration of this one and the task's own
        /// router as its delegate (a body that waits for an app's reader: see
        /// ``URLSessionTransport/makeTask(for:events:)``), invalidated once its task is under way
        /// (it ends with the task).
        case own(URLSession)
    }

    private enum Phase {
        case waiting
        case running(URLSessionTask)
        case cancelled
    }

    private struct State {
        var phase = Phase.waiting
        /// The `URLSession` task's identifier, once it runs.
        var taskID: Int?
        /// A response Formwork must report in place of the task's own end: a challenge declined
        /// on corelibs, where the task can only be ended by cancelling it.
        var declinedChallenge: HTTPURLResponse?
        /// A failure that replaces the task's own end (a body stream that could not be made).
        var failure: (any Error)?
        /// Whether the response head was reported.
        var hasResponse = false
        /// Whether `URLSessionTask.cancel()` was called (see ``cancel(_:)``).
        var cancelled = false
    }

    let events: any TransportEvents
    /// Whether the task delivers its response to a completion handler: only redirects and
    /// challenges go through the delegate.
    let deliversAtCompletion: Bool
    /// Makes a fresh body stream, for a streamed body.
    let makeStream: (@Sendable () throws -> InputStream)?
    /// The exchange's trust (nil: the system's evaluation).
    let trust: TrustEvaluator?
    /// Where the cookies responses set go, when Formwork keeps them (see ``CookieJar``).
    let cookies: CookieJar?
    private let router: URLSessionTransportDelegate
    private let madeOn: MadeOn
    /// What the `URLSession` task sends, and the file its body is read from, if any.
    private let request: URLRequest
    private let bodyFile: URL?
    private let state = Protected(State())

    /// - Parameters:
    ///   - request: What the `URLSession` task sends (its body in it, unless `bodyFile`).
    ///   - bodyFile: The file the body is read from, if any.
    ///   - madeOn: Where the `URLSession` task is made.
    ///   - router: The delegate that routes the task's callbacks.
    ///   - events: Where the exchange's events go.
    ///   - deliversAtCompletion: Whether the response goes to a completion handler.
    ///   - makeStream: Makes a fresh body stream, for a streamed body.
    ///   - trust: The exchange's trust.
    ///   - cookies: Where the cookies responses set go, when Formwork keeps them.
    init(
        request: URLRequest, bodyFile: URL?, madeOn: MadeOn, router: URLSessionTransportDelegate,
        events: any TransportEvents, deliversAtCompletion: Bool,
        makeStream: (@Sendable () throws -> InputStream)?, trust: TrustEvaluator? = nil,
        cookies: CookieJar? = nil
    ) {
        self.request = request
        self.bodyFile = bodyFile
        self.madeOn = madeOn
        self.router = router
        self.events = events
        self.deliversAtCompletion = deliversAtCompletion
        self.makeStream = makeStream
        self.trust = trust
        self.cookies = cookies
    }

    /// The URLSession task, once the task was resumed.
    var task: URLSessionTask? {
        state.withLock { state in
            if case .running(let task) = state.phase { return task }
            return nil
        }
    }

    /// The identifier of the `URLSession` task, once it runs.
    var taskID: Int? { state.withLock { $0.taskID } }

    // MARK: - Starting and cancelling

    /// Where tasks are made and resumed while libcurl's shared queue is held back: one serial
    /// queue, so that at most one thread of the process waits for it (a dispatch thread per task
    /// would take the threads the delivery queues need to drain, and the wait would last).
    private static let waitingQueue = DispatchQueue(label: "org.formwork.urlsession.resume")

    func resume() {
        guard DeliveryQueue.isHoldingNetwork else { return start() }
        // Counted, so that a delivery queue holding the network for a stream's reader lets go.
        DeliveryQueue.callsWaitingForNetwork.withLock { $0 += 1 }
        Self.waitingQueue.async {
            self.start()
            DeliveryQueue.callsWaitingForNetwork.withLock { $0 -= 1 }
        }
    }

    private func start() {
        guard case .waiting = state.withLock({ $0.phase }) else { return }
        // Making and resuming a task wait for libcurl's shared queue (corelibs `workQueue.sync`).
        DeliveryQueue.countingWaitForNetwork { startCounted() }
    }

    private func startCounted() {
        let (task, ownSession) = makeURLSessionTask()
        // Routed before it can be cancelled or resumed: a cancel unroutes what it cancels.
        router.register(task, to: self)
        let started = state.withLock { state -> Bool in
            guard case .waiting = state.phase else { return false }
            state.phase = .running(task)
            state.taskID = task.taskIdentifier
            return true
        }
        guard started else {
            // Cancelled while the task was being made.
            router.unregister(task)
            task.cancel()
            ownSession?.invalidateAndCancel()
            return
        }
        task.resume()
        // A URLSession of the task's own ends with it: its connection, queue and delegate go.
        ownSession?.finishTasksAndInvalidate()
    }

    /// The `URLSession` task (not resumed), and the URLSession made for it alone, if any.
    private func makeURLSessionTask() -> (task: URLSessionTask, ownSession: URLSession?) {
        switch madeOn {
        case .own(let shared):
            let own = URLSession(
                configuration: shared.configuration, delegate: router,
                delegateQueue: DeliveryQueue(name: "org.formwork.session.stream", limits: .stream))
            let task =
                bodyFile.map { own.uploadTask(with: request, fromFile: $0) } ?? own.dataTask(with: request)
            return (task, own)
        case .shared(let urlSession) where !deliversAtCompletion:
            let task =
                bodyFile.map { urlSession.uploadTask(with: request, fromFile: $0) }
                ?? urlSession.dataTask(with: request)
            return (task, nil)
        case .shared(let urlSession):
            let router = router
            let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                // Called from a block the delivery queue runs inline on libcurl's queue: the
                // work goes to the task that awaits the outcome, else to the queue.
                if let queue = DeliveryQueue.runningInline {
                    let complete: @Sendable () -> Void = {
                        router.completed(self, data: data, response: response, error: error)
                    }
                    if !self.runInWaitingTask(complete) { queue.runAfterInlineBlock(complete) }
                    return
                }
                router.completed(self, data: data, response: response, error: error)
            }
            let task =
                bodyFile.map {
                    urlSession.uploadTask(with: request, fromFile: $0, completionHandler: completion)
                }
                ?? urlSession.dataTask(with: request, completionHandler: completion)
            return (task, nil)
        }
    }

    /// Cancels the task and stops routing its callbacks at once (its events are over for
    /// Formwork: nothing of the task outlives the request that cancelled it).
    func cancel() {
        let task = state.withLock { state -> URLSessionTask? in
            defer { state.phase = .cancelled }
            if case .running(let task) = state.phase { return task }
            return nil
        }
        guard let task else { return }
        router.unregister(task)
        // corelibs cancels on libcurl's shared queue, which a stream's slow reader may hold.
        DeliveryQueue.countingWaitForNetwork { cancel { task.cancel() } }
    }

    // MARK: - What the delegate reports

    /// Reports the task's response head: the `HTTPURLResponse` itself, kept in the head (nothing
    /// is copied). A response that is not HTTP has no head: none is reported, and the body comes.
    func receiveResponse(_ response: URLResponse) -> Bool {
        state.withLock { $0.hasResponse = true }
        guard let response = response as? HTTPURLResponse else { return true }
        cookies?.store(from: response)
        return events.receiveResponseHead(TransportResponseHead(response))
    }

    /// Hands `work` (the task's completion) to a Swift task that awaits the request's outcome,
    /// when the events have one (see ``WaitingTaskRunner``).
    /// - Returns: `false` when none waits.
    func runInWaitingTask(_ work: @escaping @Sendable () -> Void) -> Bool {
        (events as? any WaitingTaskRunner)?.runInWaitingTask(work) ?? false
    }

    /// Runs `answer` (a call of a URLSession completion handler) unless the task was cancelled,
    /// in order with ``cancel(_:)``. corelibs traps when a completion handler answers a question
    /// (a response's disposition, a redirect) after a cancel changed the task's state ("Received
    /// callback for HTTP redirection, but we're not waiting for it"). An answer only queues work
    /// on the task's serial queue, under this lock; a cancel sets its flag under the lock first,
    /// so an answer either saw the flag and never ran, or was queued before the cancel's own work.
    func answer(_ answer: () -> Void) {
        state.withLock { state in
            if !state.cancelled { answer() }
        }
    }

    /// Cancels the task with `cancel` (which calls `URLSessionTask.cancel()`), in order with
    /// ``answer(_:)``: a question asked before is answered first, or never. The cancel itself runs
    /// outside the lock: corelibs' `cancel()` waits for libcurl's queue, where corelibs may be
    /// calling this task meanwhile (a new body stream: ``fail(with:)``, which takes the lock).
    func cancel(_ cancel: () -> Void) {
        state.withLock { $0.cancelled = true }
        cancel()
    }

    /// The task ends with `response` (a declined challenge), whatever it reports.
    func declineChallenge(with response: HTTPURLResponse) {
        state.withLock { $0.declinedChallenge = response }
    }

    /// The task ends with `error`, whatever it reports.
    func fail(with error: any Error) {
        state.withLock { $0.failure = error }
    }

    /// Reports the task's end, read through what the delegate learned.
    /// - Parameters:
    ///   - error: The task's error.
    ///   - taskResponse: The task's own `response`, read only when the task ended without error and
    ///     without a reported response: corelibs never hands a `3xx` head to the delegate (it
    ///     expects to follow it), so a `3xx` that is not followed — one without `Location` — ends
    ///     the task with no response reported; it is reported here.
    func finish(_ error: (any Error)?, taskResponse: () -> URLResponse? = { nil }) {
        let (declined, failure, hasResponse) = state.withLock {
            ($0.declinedChallenge, $0.failure, $0.hasResponse)
        }
        if let failure {
            events.finish(failure)
        } else if let declined {
            if !hasResponse { _ = events.receiveResponseHead(TransportResponseHead(declined)) }
            events.finish(nil)
        } else {
            if error == nil, !hasResponse, let taskResponse = taskResponse() as? HTTPURLResponse {
                _ = receiveResponse(taskResponse)
            }
            events.finish(error)
        }
    }
}
