import Foundation

/// What the engine tells the HTTP cache layer about one attempt of a request (see
/// ``TransportRequest``): the form's policy, and whether the attempt must ask the server whatever
/// is stored.
struct CacheUse: Sendable {
    /// The form's policy; `nil`: the attempt is never answered from the cache nor stored, but an
    /// unsafe method that succeeds still drops what is stored for its URL.
    var policy: CachePolicy?
    /// Whether the attempt asks the server even when a stored response could answer it: the
    /// second delivery of ``CachePolicy/cacheThenNetwork``, and a retry of an attempt the cache
    /// answered (asking the cache again would give the same answer). A stored response is then
    /// revalidated.
    var asksServer = false
}
