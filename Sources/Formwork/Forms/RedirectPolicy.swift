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
/// A request whose policy is not ``follow`` bypasses the session's ``HTTPCache`` (it is neither
/// answered from it nor stored): the cache keys a response by the URL that was asked for,
/// whichever hop answered, so a stored final response could stand in for a refused redirect and
/// the other way round.
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
