import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in ``Transport``, on a `URLSession` of its own: what a session carries its requests
/// on when its ``Session/Configuration/transport`` is `nil`, on every platform.
///
/// Make one yourself for a `URLSessionConfiguration` of your own (a proxy, a connection limit,
/// `waitsForConnectivity`), or to wrap the built-in transport in one of yours (see the Transports
/// article):
///
/// ```swift
/// let urlSessionConfiguration = URLSessionConfiguration.default
/// urlSessionConfiguration.httpMaximumConnectionsPerHost = 4
/// let api = Session { configuration in
///     configuration.transport = URLSessionTransport(configuration: urlSessionConfiguration)
/// }
/// ```
///
/// **No `URLCache`.** The `URLSession` gets a copy of the configuration with `urlCache` set to
/// `nil`, on every platform; the object you pass is not changed. On Linux, cancelling a request
/// while corelibs URLSession looks it up in the cache can crash the whole process
/// (`TaskRegistry.swift:118: Trying to access a behaviour for a task that in not in the
/// registry`); without a cache that window does not exist. What an app gives up: on Apple
/// platforms, `URLCache`'s storing and revalidation of cacheable responses (corelibs never stores
/// a response anyway). Formwork's own ``HTTPCache`` (``Session/Configuration/cache``) takes its
/// place.
///
/// **Lifetime.** The transport's `URLSession` lives as long as the transport: once nothing
/// refers to it (no session, nor your code), it is invalidated, after the tasks it runs finish,
/// and its connections and threads go. A transport you make belongs to you, and may be shared by
/// several sessions: ``Session/invalidate()`` only lets go of it. The one a session makes for
/// itself (``Session/Configuration/transport`` `nil`) is invalidated with the session.
public final class URLSessionTransport: Transport {
    // One `URLSession` per transport, whose delegate (see `URLSessionTransport+Delegate.swift`)
    // hands each task's callbacks to the task's events on a `DeliveryQueue`. A request nobody
    // observes as it moves (`TransportRequest.isObserved` false) gets a task with a completion
    // handler, which skips one delegate-queue operation per callback on corelibs; its events are
    // reported when it completes.

    /// The URLSession.
    let urlSession: URLSession
    /// Its delegate: routes every task's callbacks to the task's events.
    let router: URLSessionTransportDelegate
    /// The serial queue the URLSession delivers its callbacks on; it slows the network down when
    /// they fall behind (see ``DeliveryQueue``).
    let deliveryQueue: DeliveryQueue
    /// The cookies Formwork keeps instead of corelibs (Linux; nil elsewhere, and when the
    /// configuration stores none): see ``CookieJar``.
    let cookies: CookieJar?

    /// Creates the transport, with a `URLSession` for a copy of `configuration` with no
    /// `URLCache`.
    /// - Parameter configuration: The configuration of the `URLSession` (copied, and the copy's
    ///   `urlCache` set to `nil`; yours is not changed). Defaults to `.default`.
    public init(configuration: URLSessionConfiguration = .default) {
        let router = URLSessionTransportDelegate()
        let queue = DeliveryQueue(name: "org.formwork.session.delegate", runsIdleBlocksInline: true)
        self.router = router
        self.deliveryQueue = queue
        let configuration = Self.safeCopy(of: configuration)
        #if canImport(FoundationNetworking)
            self.cookies = CookieJar.takingOver(configuration)
        #else
            self.cookies = nil
        #endif
        self.urlSession = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit {
        urlSession.finishTasksAndInvalidate()
    }

    /// Whether `URLSession` enforces an idle timeout of `seconds` by itself: only a whole number
    /// of seconds (corelibs truncates the rest); Formwork watches any other.
    /// - Parameter seconds: The idle timeout.
    /// - Returns: `true` for a whole number of seconds.
    public func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool {
        IdleTimeout.forURLSession(seconds) == seconds
    }

    /// How trust failures name this transport on Linux.
    static let corelibsName = "corelibs URLSession (Linux)"

    /// A copy of `configuration` that Formwork can run safely: no `URLCache`, so that a cancel can
    /// never race the cache lookup corelibs runs before a task's protocol exists.
    static func safeCopy(of configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        // `copy()` is typed `Any`; it is a URLSessionConfiguration on every platform.
        let copy = configuration.copy() as? URLSessionConfiguration ?? URLSessionConfiguration.default
        copy.urlCache = nil
        return copy
    }

    /// Makes the task of one exchange: a `URLSession` task, made and started when it is resumed.
    /// - Parameters:
    ///   - request: What to send.
    ///   - events: Where the exchange's events go.
    /// - Returns: The task, not started.
    public func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        #if canImport(FoundationNetworking)
            // corelibs gives no server-trust challenge: a host whose rules need the server's
            // certificates fails here, before a byte is sent, never silently unpinned.
            if let trust = request.trust, let url = request.urlRequest.url,
                url.scheme?.lowercased() == "https", let host = url.host,
                let refusal = trust.refusal(forHostWithoutEvaluation: host, transportName: Self.corelibsName)
            {
                return FailedTransportTask(error: refusal, events: events)
            }
        #endif
        var urlRequest = request.urlRequest
        // corelibs truncates timeouts to whole seconds (0.5 would fail at once); Formwork watches
        // a fractional idle timeout itself (see `IdleTimeout`). Set only when it changes: on Linux
        // each change copies the whole request.
        let timeout = IdleTimeout.forURLSession(urlRequest.timeoutInterval)
        if timeout != urlRequest.timeoutInterval { urlRequest.timeoutInterval = timeout }
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
        // A body that waits for an app's reader goes out on a URLSession (delivery queue and
        // delegate) of its own, so that the wait never holds the callbacks of the session's other
        // requests (a reader awaiting one of them would wait for itself).
        let waits = request.waitsForReader
        return URLSessionTransportTask(
            request: urlRequest, bodyFile: file, madeOn: waits ? .own(urlSession) : .shared(urlSession),
            router: waits ? URLSessionTransportDelegate() : router, events: events,
            deliversAtCompletion: !request.isObserved && !waits,
            makeStream: makeStream, trust: request.trust, cookies: cookies)
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
