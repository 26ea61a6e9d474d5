import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Whether a request follows the server's redirects: ``follow`` (the default), ``refuse``, or
/// ``decide(_:)`` hop by hop.
///
/// Set it for a session (``Session/Configuration/redirectPolicy``) or for one form
/// (``Formable/redirectPolicy``, which wins). A redirect that is not followed is the request's
/// response, on every transport: its status, its `Location` and its body, as the server sent them
/// (default validation then fails a `3xx` with ``NetworkError/Kind/unacceptableStatusCode``;
/// widen it with `validate(statusCode:)` to read it as a success).
///
/// Formwork's own rules apply first, whatever the policy: a `307`/`308` of a request with a body
/// is never followed, and a hop to another origin loses its credential headers (see
/// <doc:Observability>). The request a policy returns is checked like every request before it is
/// sent.
///
/// The session's ``HTTPCache`` stores and answers each hop under its own URL, whatever the
/// policy: a redirect under the URL that answered it (a `301` or `308` with a validator is
/// reusable by heuristic, another `3xx` with explicit freshness), the final response under its
/// own. A request that follows a stored redirect asks the policy as for one from the server, then
/// looks the next URL up; a redirect the policy refuses is the response, from the cache or not.
///
/// ```swift
/// // Follow redirects within the API's host only.
/// let api = Session { configuration in
///     configuration.redirectPolicy = .decide { _, next in
///         next.url?.host == "api.example.com" ? next : nil
///     }
/// }
/// ```
public struct RedirectPolicy: Sendable {
    private let body: @Sendable (HTTPURLResponse, URLRequest) -> URLRequest?
    /// Whether this is ``follow``: every redirect the rules allow is followed.
    let followsAll: Bool

    private init(
        followsAll: Bool = false, _ body: @escaping @Sendable (HTTPURLResponse, URLRequest) -> URLRequest?
    ) {
        self.followsAll = followsAll
        self.body = body
    }

    /// Follow every redirect Formwork's rules allow (the default).
    public static let follow = RedirectPolicy(followsAll: true) { _, next in next }

    /// Follow no redirect: the `3xx` response is the response, `Location` and body intact.
    public static let refuse = RedirectPolicy { _, _ in nil }

    /// Decide each hop.
    /// - Parameter decide: Given the redirect response and the request Formwork would send next
    ///   (credentials already removed when it leaves the origin), returns the request to send —
    ///   that one, a changed one — or `nil` to take the redirect response as the response. Called
    ///   on the transport's thread: keep it short and do not block.
    /// - Returns: The policy.
    public static func decide(
        _ decide: @escaping @Sendable (_ response: HTTPURLResponse, _ next: URLRequest) -> URLRequest?
    ) -> RedirectPolicy {
        RedirectPolicy(decide)
    }

    /// The request to follow the redirect with, or nil.
    func next(after response: HTTPURLResponse, proposed request: URLRequest) -> URLRequest? {
        body(response, request)
    }
}
