import Foundation

/// What a finished request did, for monitors and logs.
public struct RequestMetrics: Sendable {
    /// The request's id.
    public let requestID: UUID
    /// The last `URLRequest` sent.
    public let request: URLRequest?
    /// The last response.
    public let response: HTTPURLResponse?
    /// The failure, or `nil` on success.
    public let error: NetworkError?
    /// How many attempts were made (retries and reloads included).
    public let attempts: Int
    /// Seconds from the start of the request to its end.
    public let duration: TimeInterval
    /// Body bytes sent by the last attempt.
    public let bytesSent: Int64
    /// Body bytes received by the last attempt.
    public let bytesReceived: Int64
    /// Where the last response came from, with its age and staleness (see ``DataResponse/source``).
    var cache = CacheDelivery.network
    /// Where the last response came from: the network, the ``HTTPCache``, or the cache after a `304`.
    public var source: ResponseSource { cache.source }
    /// The age in seconds of a response from the cache; `nil` from the network.
    public var age: TimeInterval? { cache.age }
    /// Whether a stale stored response was served (`stale-while-revalidate`, `stale-if-error`).
    public var isStale: Bool { cache.isStale }
    /// The HTTP version of the last response from the network, e.g. `"HTTP/1.1"` or `"HTTP/2.0"`,
    /// when its transport said it (a transport that reads the head off the wire, such as one on
    /// AsyncHTTPClient); `nil` otherwise: `URLSessionTransport` gets an `HTTPURLResponse`, which
    /// does not tell its version, and a response from the cache has none of its own.
    public internal(set) var httpVersion: String?
}

/// Watches requests: for logging, metrics, tracing.
///
/// Set monitors on a session (``Session/Interceptors/eventMonitors``). Every method has an empty
/// default. They are called on Formwork's own threads, synchronously: keep them fast and
/// thread-safe (hand heavy work to a queue or an actor).
public protocol EventMonitor: Sendable {
    /// An attempt's `URLRequest` is about to be sent (after adapters ran), or to be answered by
    /// the HTTP cache without reaching the server (its metrics then say ``ResponseSource/cache``).
    /// - Parameters:
    ///   - id: The request's id.
    ///   - request: What is sent.
    ///   - attempt: The attempt number, from 1.
    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int)
    /// An attempt shares the network request of an identical request already in flight
    /// (coalescing): it sends nothing itself, so it gets this instead of
    /// ``requestDidStart(_:request:attempt:)``. Monitors see one network request (one
    /// `requestDidStart`) and each logical request (one ``requestDidFinish(_:)`` each).
    /// - Parameters:
    ///   - id: The request's id.
    ///   - request: What it would have sent (identical to what the other request sent).
    ///   - attempt: The attempt number, from 1.
    ///   - leaderID: The id of the request that started the network request.
    func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID)
    /// Adapters changed an attempt's request.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - original: The request built from the form.
    ///   - adapted: The request after the adapters.
    func requestDidAdapt(_ id: UUID, from original: URLRequest, to adapted: URLRequest)
    /// An attempt is redirected: the transport follows `response` (a `3xx`) with `request`, within
    /// the same attempt (tracing records each hop as one more request sent).
    ///
    /// Called only for redirects Formwork follows (see ``RedirectPolicy``); a redirect that is not
    /// followed is the attempt's response.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - response: The redirect response.
    ///   - request: The request sent next, after Formwork's rules and the ``RedirectPolicy``.
    ///   - attempt: The attempt number, from 1.
    func requestWillRedirect(
        _ id: UUID, after response: HTTPURLResponse, to request: URLRequest, attempt: Int)
    /// An attempt failed and will be retried after `delay` seconds.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - error: Why the attempt failed.
    ///   - delay: Seconds until the next attempt.
    ///   - retryCount: Retries so far, including this one.
    func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int)
    /// A connection of an event stream ended and the stream opens a new one after `delay` seconds,
    /// as its next attempt (see ``StreamReconnection``). Not a retry: the connection ended as
    /// event streams do, or dropped.
    /// - Parameters:
    ///   - id: The request's id.
    ///   - response: The response of the connection that ended, if one arrived.
    ///   - error: Why the connection failed (a transport error, such as a dropped connection);
    ///     `nil` when the server ended it cleanly.
    ///   - delay: Seconds until the next connection.
    func requestWillReconnect(
        _ id: UUID, after response: HTTPURLResponse?, error: NetworkError?, delay: TimeInterval)
    /// An ``Outbox`` sends one of its entries with this request: called before the request
    /// starts, once per attempt of the outbox (each attempt is a new request).
    /// - Parameters:
    ///   - id: The request's id.
    ///   - entryID: The entry's id (``Outbox/Entry/id``).
    ///   - outboxAttempt: The outbox's attempt at the entry, from 1 in this process (as
    ///     ``Outbox/Delivery/attempts`` counts them); the session's own retries within one
    ///     attempt count in the request's `attempt`.
    func requestWillSendOutboxEntry(_ id: UUID, entryID: UUID, outboxAttempt: Int)
    /// The request ended. Called before any task awaiting the request (`try await
    /// request.data()`, `decode`, …) gets its outcome.
    /// - Parameter metrics: What it did.
    func requestDidFinish(_ metrics: RequestMetrics)
    /// The session's ``TrustPolicy`` let an attempt go on with something to report: a report-only
    /// pin set that did not match (with the host and the chain's hashes), an expired pin set that
    /// was not enforced, or a report-only set a transport could not evaluate (see ``TrustReport``).
    /// - Parameters:
    ///   - id: The request's id.
    ///   - report: What happened.
    func requestDidReportTrust(_ id: UUID, report: TrustReport)
}

extension EventMonitor {
    /// Does nothing.
    public func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {}
    /// Does nothing.
    public func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID)
    {}
    /// Does nothing.
    public func requestDidAdapt(_ id: UUID, from original: URLRequest, to adapted: URLRequest) {}
    /// Does nothing.
    public func requestWillRedirect(
        _ id: UUID, after response: HTTPURLResponse, to request: URLRequest, attempt: Int
    ) {}
    /// Does nothing.
    public func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int)
    {}
    /// Does nothing.
    public func requestWillReconnect(
        _ id: UUID, after response: HTTPURLResponse?, error: NetworkError?, delay: TimeInterval
    ) {}
    /// Does nothing.
    public func requestWillSendOutboxEntry(_ id: UUID, entryID: UUID, outboxAttempt: Int) {}
    /// Does nothing.
    public func requestDidFinish(_ metrics: RequestMetrics) {}
    /// Does nothing.
    public func requestDidReportTrust(_ id: UUID, report: TrustReport) {}
}
