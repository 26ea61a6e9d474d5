import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in ``Transport``: one `URLSession` per Formwork ``Session``, whose delegate (see
/// `URLSessionTransport+Delegate.swift`) hands each task's callbacks to the task's
/// ``TransportEvents`` on a ``DeliveryQueue``.
///
/// The `URLSession` gets a copy of the app's configuration with no `URLCache` (see
/// ``Session/init(configuration:urlSessionConfiguration:)``). A request nobody observes as it moves
/// (``TransportRequest/isObserved`` false) gets a task with a completion handler, which skips one
/// delegate-queue operation per callback on corelibs; its events are reported when it completes.
final class URLSessionTransport: Transport {
    /// The URLSession.
    let urlSession: URLSession
    /// Its delegate: routes every task's callbacks to the task's events.
    let router: URLSessionTransportDelegate
    /// The serial queue the URLSession delivers its callbacks on; it slows the network down when
    /// they fall behind (see ``DeliveryQueue``).
    let deliveryQueue: DeliveryQueue

    /// Creates the transport with a `URLSession` for (a safe copy of) `configuration`.
    init(configuration: URLSessionConfiguration) {
        let router = URLSessionTransportDelegate()
        let queue = DeliveryQueue(name: "org.formwork.session.delegate")
        self.router = router
        self.deliveryQueue = queue
        self.urlSession = URLSession(
            configuration: Self.safeCopy(of: configuration), delegate: router, delegateQueue: queue)
    }

    deinit {
        urlSession.finishTasksAndInvalidate()
    }

    /// A copy of `configuration` that Formwork can run safely: no `URLCache`, so that a cancel can
    /// never race the cache lookup corelibs runs before a task's protocol exists.
    static func safeCopy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        // `copy()` is typed `Any`; it is a URLSessionConfiguration on every platform.
        let copy = configuration.copy() as? URLSessionConfiguration ?? URLSessionConfiguration.default
        copy.urlCache = nil
        return copy
    }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        var urlRequest = request.urlRequest
        // corelibs truncates timeouts to whole seconds (0.5 would fail at once); Formwork watches
        // a fractional idle timeout itself (see `IdleTimeout`).
        urlRequest.timeoutInterval = IdleTimeout.forURLSession(urlRequest.timeoutInterval)
        var makeStream: (@Sendable () throws -> InputStream)?
        var file: URL?
        switch request.body {
        case .none: break
        case .data(let data): urlRequest.httpBody = data
        case .file(let url): file = url
        case .stream(let make):
            makeStream = make
            do {
                urlRequest.httpBodyStream = try make()
            } catch {
                return FailedTransportTask(error: error, events: events)
            }
        }
        let link = URLSessionTaskLink(
            events: events, deliversAtCompletion: !request.isObserved, makeStream: makeStream)
        let task: URLSessionTask
        if request.isObserved {
            task =
                file.map { urlSession.uploadTask(with: urlRequest, fromFile: $0) }
                ?? urlSession.dataTask(with: urlRequest)
        } else {
            let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
                [router] data, response, error in
                router.completed(link, data: data, response: response, error: error)
            }
            task =
                file.map {
                    urlSession.uploadTask(with: urlRequest, fromFile: $0, completionHandler: completion)
                }
                ?? urlSession.dataTask(with: urlRequest, completionHandler: completion)
        }
        // Also for completion-handler tasks: redirects and authentication challenges need it.
        router.register(task, link: link)
        return URLSessionTransportTask(task: task, router: router)
    }
}

/// A URLSession task as a ``TransportTask``.
final class URLSessionTransportTask: TransportTask {
    let task: URLSessionTask
    private let router: URLSessionTransportDelegate

    init(task: URLSessionTask, router: URLSessionTransportDelegate) {
        self.task = task
        self.router = router
    }

    func resume() {
        task.resume()
    }

    /// Cancels the task and stops routing its callbacks at once (its events are over for
    /// Formwork: nothing of the task outlives the request that cancelled it).
    func cancel() {
        router.unregister(task)
        task.cancel()
    }
}

/// The task of an exchange that could not start (its body stream could not be made): it reports
/// the failure when resumed.
final class FailedTransportTask: TransportTask {
    private let error: any Error
    private let events: any TransportEvents
    private let done = Protected(false)

    init(error: any Error, events: any TransportEvents) {
        self.error = error
        self.events = events
    }

    func resume() {
        if end() { events.finish(error) }
    }

    func cancel() {
        if end() { events.finish(URLError(.cancelled)) }
    }

    /// Marks the task ended. - Returns: Whether it was still going.
    private func end() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
