import Foundation

/// Whether and how an exchange may be shared with identical requests in flight (coalescing): set
/// by the engine on a ``TransportRequest`` that may share, read by the coalescing layer.
struct ExchangeSharing: Sendable {
    /// The form's cache policy: requests with different policies never share.
    let formCachePolicy: CachePolicy?
    /// The id of the request, for monitors (`nil` when the session has none: making an id reads
    /// the system's random source).
    let requestID: UUID?
}
