import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Formwork's rules for following a redirect, whatever transport carries the request (a
/// transport asks through ``TransportEvents/redirect(_:to:)``).
///
/// - **Credentials stay with their origin.** On a hop to another origin (scheme, host or port)
///   every credential header is removed: the standard ones (`HTTPHeader.requestCredentialNames`)
///   and the session's `sensitiveHeaders`.
/// - **A request with a body does not follow a 307 or 308.** Those redirects keep the method and
///   must send the body again. corelibs URLSession (Linux) sends the redirected request with an
///   empty body (`Content-Length: 0`) — for a body in memory, a file or a stream alike, measured
///   against the demo server — while Apple platforms send it again. Rather than let a server
///   receive an upload without its body on one platform, Formwork does not follow these
///   redirects for requests with a body anywhere: the 307/308 response is the request's response
///   (default validation fails it with ``NetworkError/Kind/unacceptableStatusCode``; its
///   `Location` says where to send the request). Redirects of requests without a body, and
///   301/302/303 (which turn into a GET), are followed.
/// - **The next request passes the same checks as the first** (`FinalRequestCheck`): a redirect
///   whose request would carry an invalid header is not followed, and the attempt fails.
enum RedirectRule {
    /// The request to follow a redirect with, or nil to take the redirect as the response.
    /// - Parameters:
    ///   - response: The redirect response (its URL is the origin being left).
    ///   - request: The request the transport would send next.
    ///   - hasBody: Whether the redirected request has a body.
    ///   - sensitiveHeaders: The session's own credential headers.
    ///   - policy: The app's choice (the form's, else the session's), asked after the rules above
    ///     with the request they allow.
    /// - Returns: The request to send, or nil.
    /// - Throws: ``NetworkError`` when the next request fails Formwork's checks.
    static func follow(
        _ response: HTTPURLResponse, to request: URLRequest, hasBody: Bool, sensitiveHeaders: Set<String>,
        policy: RedirectPolicy = .follow
    ) throws(NetworkError) -> URLRequest? {
        if hasBody, response.statusCode == 307 || response.statusCode == 308 { return nil }
        let allowed = withoutCredentials(request, leaving: response.url, sensitiveHeaders: sensitiveHeaders)
        guard let next = policy.next(after: response, proposed: allowed) else { return nil }
        try FinalRequestCheck.validate(next)
        return next
    }

    /// `request` without its credential headers if it leaves the origin of `previous`.
    static func withoutCredentials(
        _ request: URLRequest, leaving previous: URL?, sensitiveHeaders: Set<String> = []
    ) -> URLRequest {
        guard let fields = request.allHTTPHeaderFields, !fields.isEmpty,
            Origin(previous) == nil || Origin(previous) != Origin(request.url)
        else { return request }
        let credentials = HTTPHeader.requestCredentialNames.union(sensitiveHeaders.map { $0.lowercased() })
        var request = request
        request.allHTTPHeaderFields = fields.filter { !credentials.contains($0.key.lowercased()) }
        return request
    }
}

/// Scheme, host and port of a URL (the port made explicit), to tell whether a redirect leaves
/// the origin.
private struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int?

    init?(_ url: URL?) {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            return nil
        }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }
}
