import Foundation

/// The one URLSession delegate of a ``Session``: it routes each task's events to the request
/// object that owns the task (corelibs URLSession ignores per-task delegates on Linux), follows
/// redirects without leaking credentials, and answers authentication challenges.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Route {
        let handler: RequestCore
        let attempt: Int
        /// The task delivers its response to a completion handler: only redirects and challenges
        /// are routed, never its body events.
        let deliversAtCompletion: Bool
        /// Set when identical requests share the task (coalescing): its events go to each of them.
        let flight: Flight?

        /// Hands an event to the request attempt that owns the task, or to each one sharing it.
        func forEachTarget(_ deliver: (_ handler: RequestCore, _ attempt: Int) -> Void) {
            guard let flight else { return deliver(handler, attempt) }
            for target in flight.deliveryTargets() { deliver(target.core, target.attempt) }
        }
    }

    private let routes = Protected([Int: Route]())
    /// The session's configuration: sensitive headers and credentials.
    private let configuration: Session.Configuration

    /// Creates the delegate of a session with this configuration.
    init(configuration: Session.Configuration = Session.Configuration()) {
        self.configuration = configuration
    }

    /// Routes `task`'s events to `handler` for attempt `attempt`, or to every request in `flight`.
    /// Call before resuming the task.
    func register(
        _ task: URLSessionTask, handler: RequestCore, attempt: Int, deliversAtCompletion: Bool = false,
        flight: Flight? = nil
    ) {
        let route = Route(
            handler: handler, attempt: attempt, deliversAtCompletion: deliversAtCompletion, flight: flight)
        routes.withLock { $0[task.taskIdentifier] = route }
    }

    /// Stops routing `task`'s events.
    func unregister(_ task: URLSessionTask) {
        _ = routes.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    /// How many tasks are routed right now (for tests: nothing may outlive its request).
    var routedTaskCount: Int { routes.withLock { $0.count } }

    /// How many of them get their body events from the delegate rather than a completion handler.
    var eventRoutedTaskCount: Int { routes.withLock { $0.values.filter { !$0.deliversAtCompletion }.count } }

    /// The route of a task whose events go to the delegate.
    private func route(_ task: URLSessionTask) -> Route? {
        routes.withLock { $0[task.taskIdentifier] }.flatMap { $0.deliversAtCompletion ? nil : $0 }
    }

    /// The route of any task, for redirects and challenges.
    private func anyRoute(_ task: URLSessionTask) -> Route? {
        routes.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let route = route(dataTask) else {
            completionHandler(.cancel)
            return
        }
        var disposition = URLSession.ResponseDisposition.cancel
        route.forEachTarget { handler, attempt in
            if handler.taskDidReceive(response: response, attempt: attempt) == .allow { disposition = .allow }
        }
        completionHandler(disposition)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        route(dataTask)?.forEachTarget { $0.taskDidReceive(data: data, attempt: $1) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let route = routes.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            !route.deliversAtCompletion
        else { return }
        route.forEachTarget { $0.taskDidComplete(error: error, attempt: $1) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        if let route = route(task) {
            route.handler.taskDidSendBodyData(
                totalSent: totalBytesSent, expected: totalBytesExpectedToSend, attempt: route.attempt)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        guard let route = route(task) else {
            completionHandler(nil)
            return
        }
        completionHandler(route.handler.taskNeedsNewBodyStream(attempt: route.attempt))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard RedirectBodyRule.follows(task, status: response.statusCode) else {
            completionHandler(nil)
            return
        }
        let next = Self.redirect(
            request, from: task.currentRequest ?? task.originalRequest,
            sensitiveHeaders: configuration.sensitiveHeaders)
        do throws(NetworkError) {
            try FinalRequestCheck.validate(next)
            completionHandler(next)
        } catch {
            // Not followed: the attempt fails with the error once its task ends with the 3xx.
            anyRoute(task)?.forEachTarget { $0.settle(attempt: $1, .failure(error)) }
            completionHandler(nil)
        }
    }

    /// The request to follow a redirect with: on a hop to another origin (scheme, host or port)
    /// every credential header is removed, the standard ones and the session's `sensitiveHeaders`.
    static func redirect(
        _ request: URLRequest, from previous: URLRequest?, sensitiveHeaders: Set<String> = []
    ) -> URLRequest {
        guard let fields = request.allHTTPHeaderFields, !fields.isEmpty,
            Origin(previous?.url) == nil || Origin(previous?.url) != Origin(request.url)
        else { return request }
        let credentials = HTTPHeader.requestCredentialNames.union(sensitiveHeaders.map { $0.lowercased() })
        var request = request
        request.allHTTPHeaderFields = fields.filter { !credentials.contains($0.key.lowercased()) }
        return request
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        let answer = ChallengeAnswer(
            method: space.authenticationMethod, isProxy: space.isProxy(),
            previousFailureCount: challenge.previousFailureCount, configuration: configuration)
        switch answer {
        case .performDefaultHandling:
            completionHandler(.performDefaultHandling, nil)
        case .useCredential(let credential):
            completionHandler(.useCredential, credential.urlCredential)
        case .deliverResponse:
            #if canImport(FoundationNetworking)
                // corelibs never completes the task on default handling, and ends it as cancelled
                // on any other answer: the attempt's outcome is the challenge's response instead.
                if let response = challenge.failureResponse as? HTTPURLResponse {
                    anyRoute(task)?.forEachTarget { $0.settle(attempt: $1, .response(response)) }
                }
                completionHandler(.cancelAuthenticationChallenge, nil)
            #else
                // With no credential of its own, Apple's URLSession delivers the 401/407.
                completionHandler(.performDefaultHandling, nil)
            #endif
        }
    }
}

/// Scheme, host and port of a URL (the port made explicit), to tell whether a redirect leaves
/// the origin.
private struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int?

    init?(_ url: URL?) {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }
}
