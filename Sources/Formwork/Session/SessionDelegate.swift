import Foundation

/// The one URLSession delegate of a ``Session``: it routes each task's events to the request
/// object that owns the task (corelibs URLSession ignores per-task delegates on Linux).
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Route {
        let handler: RequestCore
        let attempt: Int
    }

    private let routes = Protected([Int: Route]())

    /// Routes `task`'s events to `handler` for attempt `attempt`. Call before resuming the task.
    func register(_ task: URLSessionTask, handler: RequestCore, attempt: Int) {
        routes.withLock { $0[task.taskIdentifier] = Route(handler: handler, attempt: attempt) }
    }

    /// Stops routing `task`'s events.
    func unregister(_ task: URLSessionTask) {
        _ = routes.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    /// How many tasks are routed right now (for tests: nothing may outlive its request).
    var routedTaskCount: Int { routes.withLock { $0.count } }

    private func route(_ task: URLSessionTask) -> Route? {
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
        completionHandler(route.handler.taskDidReceive(response: response, attempt: route.attempt))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let route = route(dataTask) {
            route.handler.taskDidReceive(data: data, attempt: route.attempt)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let route = routes.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        route.handler.taskDidComplete(error: error, attempt: route.attempt)
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
        completionHandler(Self.redirect(request, from: task.currentRequest ?? task.originalRequest))
    }

    /// The request to follow a redirect with: credentials never travel to another host.
    static func redirect(_ request: URLRequest, from previous: URLRequest?) -> URLRequest {
        var request = request
        let previousHost = previous?.url?.host?.lowercased()
        if previousHost != request.url?.host?.lowercased() {
            request.setValue(nil, forHTTPHeaderField: "Authorization")
            request.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        return request
    }
}
