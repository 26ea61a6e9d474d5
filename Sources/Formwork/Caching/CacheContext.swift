import Foundation

/// What the HTTP cache knows about one attempt, carried in its `PreparedRequest` from the
/// lookup before the task to the settlement after it.
struct CacheContext: Sendable {
    /// The form's policy; `nil` for downloads and uploads, which are never answered from the cache
    /// or stored (their unsafe methods still invalidate what is stored for their URL).
    var policy: CachePolicy?
    /// The key of the request, once the cache looked at it.
    var key: CacheKey?
    /// The request method.
    var method = "GET"
    /// The final URL.
    var url = ""
    /// The request's header fields (after adapters).
    var requestHeaders = HTTPHeaders()
    /// When the attempt was about to be sent.
    var requestTime = Date.distantPast
    /// The stored response this attempt revalidates (it answers a `304`, or a failure within
    /// `stale-if-error`).
    var stored: CacheEntry?
    /// Whether the cache answered the attempt itself: there is nothing to settle.
    var answered = false
    /// The stored response that answers the attempt (with ``answered``; `nil` there for
    /// `cacheOnly` with nothing stored, which fails the attempt).
    var answer: CacheEntry?
    /// Whether the request reloads in the background once this answer is delivered
    /// (cache-then-network's second delivery).
    var refreshesAfterAnswer = false
    /// Where the attempt's response came from.
    var delivery = CacheDelivery.network

    /// A context for an attempt of a form with `policy` (`nil`: not cached).
    init(policy: CachePolicy?) {
        self.policy = policy
    }
}
