import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one delegate of the built-in transport's `URLSession`: it routes each task's callbacks to
/// the task's ``TransportEvents`` (corelibs URLSession ignores per-task delegates on Linux),
/// asks them about redirects and password challenges, and keeps corelibs' challenge quirks out
/// of Formwork's engine.
///
/// A callback that comes from a block the ``DeliveryQueue`` runs inline on libcurl's queue moves
/// to the queue first (``DeliveryQueue/runningInline``): Formwork's code never runs on libcurl's
/// queue. (`needNewBodyStream` is the exception corelibs makes itself: libcurl asks it directly.)
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let routes = Protected([Int: URLSessionTransportTask]())

    /// Routes `task`'s callbacks to `link`. Call before resuming the task.
    func register(_ task: URLSessionTask, to link: URLSessionTransportTask) {
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
    private func link(_ task: URLSessionTask) -> URLSessionTransportTask? {
        routes.withLock { $0[task.taskIdentifier] }.flatMap { $0.deliversAtCompletion ? nil : $0 }
    }

    /// The link of any task, for redirects and challenges.
    private func anyLink(_ task: URLSessionTask) -> URLSessionTransportTask? {
        routes.withLock { $0[task.taskIdentifier] }
    }

    /// The whole response of a task made with a completion handler: reported as the delegate's
    /// callbacks would have been, then the end.
    func completed(_ link: URLSessionTransportTask, data: Data?, response: URLResponse?, error: (any Error)?)
    {
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
