/// The names this product records that OpenTelemetry's semantic conventions package does not
/// have: Formwork's own facts as span attributes (in the `formwork.` namespace), and the metric
/// names of the HTTP client conventions (the package holds attribute names only).
///
/// Every other attribute name comes from `OTelSemanticConventions` (`OTelAttribute`).
public enum FormworkAttribute {
    /// Where a response came from when not from the network: `"cache"` (answered by the session's
    /// `HTTPCache` without reaching the server) or `"revalidated"` (the cache's entry after a `304`).
    public static let cacheSource = "formwork.cache.source"
    /// The age in seconds of a response from the cache.
    public static let cacheAge = "formwork.cache.age"
    /// `true` when the cache served a stale response (`stale-while-revalidate`, `stale-if-error`).
    public static let cacheStale = "formwork.cache.stale"
    /// `true` when the request joined an identical request in flight and sent nothing itself
    /// (the span links to that request's span).
    public static let coalesced = "formwork.coalesced"
    /// The request's `Idempotency-Key`: an `Outbox` entry's key (`Outbox.Entry.idempotencyKey`),
    /// or one set with `idempotencyKey(_:)`.
    public static let idempotencyKey = "formwork.idempotency_key"
    /// Formwork's attempt number of the request (from 1; retries, reloads and an event stream's
    /// new connections count, redirects do not).
    public static let attempt = "formwork.attempt"
    /// Why this span is a resend: `"retry"`, `"redirect"`, `"reload"` or `"reconnect"` (an event
    /// stream's new connection).
    public static let resendReason = "formwork.resend.reason"
    /// The id of the `Outbox` entry the request sends (`Outbox.Entry.id`).
    public static let outboxEntry = "formwork.outbox.entry_id"
    /// The outbox's attempt at that entry, from 1 (each attempt is a new request; the session's
    /// own retries within it count in ``attempt``).
    public static let outboxAttempt = "formwork.outbox.attempt"
    /// `true` when the caller cancelled the request (the span's status is then not an error).
    public static let cancelled = "formwork.cancelled"
}

/// The metric names of OpenTelemetry's HTTP client conventions, as recorded through swift-metrics.
public enum HTTPClientMetric {
    /// `http.client.request.duration`: a histogram (a swift-metrics `Recorder` that aggregates) of
    /// each request sent, in seconds.
    public static let requestDuration = "http.client.request.duration"
    /// `http.client.active_requests`: the requests in flight (a swift-metrics `Meter`).
    public static let activeRequests = "http.client.active_requests"
    /// `http.client.request.body.size`: a histogram of the body bytes sent, per request.
    public static let requestBodySize = "http.client.request.body.size"
    /// `http.client.response.body.size`: a histogram of the body bytes received, per request.
    public static let responseBodySize = "http.client.response.body.size"
}
