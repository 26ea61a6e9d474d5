import Foundation

/// What the HTTP cache layer knows about one exchange, from its lookup before the exchange to its
/// settlement after it (see ``CachingTransport``).
struct CacheContext: Sendable {
    /// The form's policy; `nil` for an exchange that is never answered from the cache nor stored
    /// (see ``CacheUse``).
    var policy: CachePolicy?
    /// The key of the request.
    var key: CacheKey
    /// The request method.
    var method: String
    /// The final URL.
    var url: String
    /// The request's header fields (after adapters).
    var requestHeaders: HTTPHeaders
    /// When the exchange was about to be sent.
    var requestTime = Date()
    /// The stored response the exchange revalidates (it answers a `304`, or a failure within
    /// `stale-if-error`).
    var stored: CacheEntry?
    /// The exchange's trust, which a background revalidation keeps.
    var trust: TrustEvaluator?
}
