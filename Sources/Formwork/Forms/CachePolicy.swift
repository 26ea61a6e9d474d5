/// How one request uses the session's ``HTTPCache`` (set per form with
/// ``Formable/cachePolicy``). Without a cache on the session, every policy loads from the network
/// (and ``cacheOnly`` fails).
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// HTTP's own rules (RFC 9111): a fresh stored response is used, a stale one is revalidated
    /// (or served at once while it is revalidated in the background, within
    /// `stale-while-revalidate`), and responses are stored when their headers allow it. The default.
    case useProtocol
    /// Always asks the server, without conditional fields; a storable response still replaces
    /// the stored one.
    case reloadIgnoringCache
    /// Uses a stored response however old it is; loads (and stores) only when there is none.
    case returnCacheElseLoad
    /// Uses a stored response however old it is; never asks the server. Without one the request
    /// fails with a transport error (`URLError.resourceUnavailable`).
    case cacheOnly
    /// Hands the stored response (however old) to the handlers first, then loads from the network
    /// and hands them the fresh one as a second attempt of the same request, like a reload. With
    /// nothing stored, it loads once, as ``useProtocol`` would.
    case cacheThenNetwork
}
