import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One URLSession task's link to its ``TransportEvents``, and what the delegate learned about
/// the task along the way.
final class URLSessionTaskLink: Sendable {
    private struct State {
        /// A response Formwork must report in place of the task's own end: a challenge declined
        /// on corelibs, where the task can only be ended by cancelling it.
        var declinedChallenge: HTTPURLResponse?
        /// A failure that replaces the task's own end (a body stream that could not be made).
        var failure: (any Error)?
        /// Whether the response head was reported.
        var hasResponse = false
        /// The task's identifier, once it exists.
        var taskID: Int?
        /// Whether Formwork cancelled the task.
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
    private let state = Protected(State())

    init(
        events: any TransportEvents, deliversAtCompletion: Bool,
        makeStream: (@Sendable () throws -> InputStream)?, trust: TrustEvaluator? = nil,
        cookies: CookieJar? = nil
    ) {
        self.events = events
        self.deliversAtCompletion = deliversAtCompletion
        self.makeStream = makeStream
        self.trust = trust
        self.cookies = cookies
    }

    /// The identifier of the task this link belongs to.
    var taskID: Int? {
        get { state.withLock { $0.taskID } }
        set { state.withLock { $0.taskID = newValue } }
    }

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
    /// serialized with ``cancel(_:)``. corelibs traps when a completion handler answers a
    /// question (a response's disposition, a redirect) after a cancel changed the task's state
    /// ("Received callback for HTTP redirection, but we're not waiting for it"); both only queue
    /// work on the task's queue, so the order taken under this lock is the order corelibs sees.
    func answer(_ answer: () -> Void) {
        state.withLock { state in
            if !state.cancelled { answer() }
        }
    }

    /// Cancels the task with `cancel` (which calls `URLSessionTask.cancel()`), serialized with
    /// ``answer(_:)``: a question asked before is answered first, or never.
    func cancel(_ cancel: () -> Void) {
        state.withLock { state in
            state.cancelled = true
            cancel()
        }
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

/// The one delegate of the built-in transport's `URLSession`: it routes each task's callbacks to
/// the task's ``TransportEvents`` (corelibs URLSession ignores per-task delegates on Linux),
/// asks them about redirects and password challenges, and keeps corelibs' challenge quirks out
/// of Formwork's engine.
///
/// A callback that comes from a block the ``DeliveryQueue`` runs inline on libcurl's queue moves
/// to the queue first (``DeliveryQueue/runningInline``): Formwork's code never runs on libcurl's
/// queue. (`needNewBodyStream` is the exception corelibs makes itself: libcurl asks it directly.)
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let routes = Protected([Int: URLSessionTaskLink]())

    /// Routes `task`'s callbacks to `link`. Call before resuming the task.
    func register(_ task: URLSessionTask, link: URLSessionTaskLink) {
        link.taskID = task.taskIdentifier
        routes.withLock { $0[task.taskIdentifier] = link }
    }

    /// Stops routing `task`'s callbacks.
    func unregister(_ task: URLSessionTask) {
        _ = routes.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    /// How many tasks are routed right now (for tests: nothing may outlive its request).
    var routedTaskCount: Int { routes.withLock { $0.count } }

    /// How many of them get their body events from the delegate rather than a completion handler.
    var eventRoutedTaskCount: Int { routes.withLock { $0.values.filter { !$0.deliversAtCompletion }.count } }

    /// The link of a task whose events go to the delegate.
    private func link(_ task: URLSessionTask) -> URLSessionTaskLink? {
        routes.withLock { $0[task.taskIdentifier] }.flatMap { $0.deliversAtCompletion ? nil : $0 }
    }

    /// The link of any task, for redirects and challenges.
    private func anyLink(_ task: URLSessionTask) -> URLSessionTaskLink? {
        routes.withLock { $0[task.taskIdentifier] }
    }

    /// The whole response of a task made with a completion handler: reported as the delegate's
    /// callbacks would have been, then the end.
    func completed(_ link: URLSessionTaskLink, data: Data?, response: URLResponse?, error: (any Error)?) {
        let routed = routes.withLock { routes -> Bool in
            guard let id = link.taskID, routes[id] === link else { return false }
            routes[id] = nil
            return true
        }
        // Not routed any more: the task was cancelled by Formwork, which ignores it from then on.
        guard routed else { return }
        if let response, link.receiveResponse(response), let data, !data.isEmpty {
            link.events.receiveBody(data)
        }
        link.finish(error)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(
                    session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
            }
        }
        // Not routed: Formwork cancelled the task, and corelibs must not get an answer any more.
        guard let link = link(dataTask) else { return }
        let allow = link.receiveResponse(response)
        link.answer { completionHandler(allow ? .allow : .cancel) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(session, dataTask: dataTask, didReceive: data)
            }
        }
        link(dataTask)?.events.receiveBody(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(session, task: task, didCompleteWithError: error)
            }
        }
        guard let link = routes.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            !link.deliversAtCompletion
        else { return }
        link.finish(error, taskResponse: { task.response })
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(
                    session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                    totalBytesExpectedToSend: totalBytesExpectedToSend)
            }
        }
        link(task)?.events.sent(
            totalBytes: totalBytesSent,
            expectedBytes: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    /// URLSession must send a body again (Apple: a 307/308 redirect, an authentication challenge,
    /// a re-sent request, for a streamed body; corelibs: libcurl re-sends the request, for any
    /// body): a fresh stream from the form's factory, never the one already read. If the form
    /// cannot make one, the task ends with its error.
    ///
    /// On corelibs the question comes from libcurl's rewind, on libcurl's own queue, when it sends
    /// a request again by itself (a reused connection closed before any response byte). corelibs
    /// can rewind only a streamed body: a `Data` or file body would go out empty under its
    /// `Content-Length`, and the server would wait for it until the idle timeout. That task ends
    /// at once instead, as `networkConnectionLost` (what it is: the connection closed
    /// without an answer), which the retry policy and the outbox retry with the same
    /// `Idempotency-Key`.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // Any task: a completion-handler task re-sends its body too.
        guard let link = anyLink(task) else {
            completionHandler(nil)
            return
        }
        guard let make = link.makeStream else {
            completionHandler(nil)
            #if canImport(FoundationNetworking)
                link.fail(with: BodyResend.lost)
                BodyResend.cancel(task, link: link)
            #endif
            return
        }
        do {
            completionHandler(try make())
        } catch {
            link.fail(with: error)
            completionHandler(nil)
            #if canImport(FoundationNetworking)
                BodyResend.cancel(task, link: link)
            #else
                task.cancel()
            #endif
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(
                    session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                    completionHandler: completionHandler)
            }
        }
        // Not routed: Formwork cancelled the task, and corelibs must not get an answer any more.
        guard let link = anyLink(task) else { return }
        link.cookies?.store(from: response)
        var next = link.events.redirect(response, to: request)
        #if canImport(FoundationNetworking)
            if let cookies = link.cookies { next = next.map(cookies.addingCookies(to:)) }
            // corelibs cannot enforce a trust policy: a hop to a host whose rules need it is not
            // made, and the exchange fails as it would have before its first byte.
            if let trust = link.trust, let url = next?.url, url.scheme?.lowercased() == "https",
                let host = url.host,
                let refusal = trust.refusal(
                    forHostWithoutEvaluation: host, transportName: URLSessionTransport.corelibsName)
            {
                link.fail(with: refusal)
                next = nil
            }
        #endif
        link.answer { [next] in completionHandler(next) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if let queue = DeliveryQueue.runningInline {
            return queue.runAfterInlineBlock {
                self.urlSession(
                    session, task: task, didReceive: challenge, completionHandler: completionHandler)
            }
        }
        let space = challenge.protectionSpace
        let link = anyLink(task)
        if let cookies = link?.cookies, let response = challenge.failureResponse as? HTTPURLResponse {
            cookies.store(from: response)
        }
        #if canImport(Security)
            if let trust = link?.trust,
                let verdict = TrustChallenge.answer(
                    challenge, rules: trust.rules(forHost: space.host), evaluator: trust)
            {
                if let failure = verdict.failure { link?.fail(with: failure) }
                guard let link else { return completionHandler(verdict.disposition, verdict.credential) }
                return link.answer { completionHandler(verdict.disposition, verdict.credential) }
            }
        #endif
        let answer = ChallengeAnswer(method: space.authenticationMethod) {
            link?.events.credential(
                isProxy: space.isProxy(), previousFailures: challenge.previousFailureCount)
        }
        let reply: (URLSession.AuthChallengeDisposition, URLCredential?) -> Void = {
            disposition, credential in
            guard let link else { return completionHandler(disposition, credential) }
            link.answer { completionHandler(disposition, credential) }
        }
        switch answer {
        case .performDefaultHandling:
            reply(.performDefaultHandling, nil)
        case .useCredential(let credential):
            reply(.useCredential, credential.urlCredential)
        case .deliverResponse:
            #if canImport(FoundationNetworking)
                // corelibs never completes the task on default handling, and ends it as cancelled
                // on any other answer: the task's outcome is the challenge's response instead.
                if let response = challenge.failureResponse as? HTTPURLResponse {
                    link?.declineChallenge(with: response)
                }
                reply(.cancelAuthenticationChallenge, nil)
            #else
                // With no credential of its own, Apple's URLSession delivers the 401/407.
                reply(.performDefaultHandling, nil)
            #endif
        }
    }
}
