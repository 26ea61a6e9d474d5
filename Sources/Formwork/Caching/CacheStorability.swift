/// What the cache may store (RFC 9111 §3) and which header fields it keeps.
enum CacheStorability {
    /// Hop-by-hop fields (RFC 9110 §7.6.1) are never stored; nor is `Set-Cookie`: a response
    /// served again must not set cookies again, and cookies stay out of the cache's files.
    static let unstoredFieldNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization", "trailer", "set-cookie",
    ]

    /// Status codes Formwork stores: those cacheable by default (RFC 9110 §15.1), except `206`
    /// (Formwork does not combine partial responses).
    static let storableStatusCodes = CacheFreshness.heuristicallyCacheableStatusCodes.subtracting([206])

    /// Whether a response may be stored.
    ///
    /// Only `GET` responses; neither the request nor the response says `no-store`; a status from
    /// ``storableStatusCodes``; not `Vary: *`; some way to reuse it (an explicit expiration time or
    /// a validator: a response with neither could never be served). `private` is fine (this is
    /// a private cache). A request with credentials (RFC 9111 §3.5) is stored only when the
    /// response says `public`, `s-maxage` or `must-revalidate`, and then under its credential.
    /// - Parameters:
    ///   - method: The request method.
    ///   - requestHeaders: The request's header fields.
    ///   - hasCredentials: Whether the request carries credentials.
    ///   - statusCode: The response status.
    ///   - responseHeaders: The response's header fields.
    /// - Returns: Whether it may be stored.
    static func canStore(
        method: String, requestHeaders: HTTPHeaders, hasCredentials: Bool, statusCode: Int,
        responseHeaders: HTTPHeaders
    ) -> Bool {
        guard method == "GET", storableStatusCodes.contains(statusCode) else { return false }
        let response = CacheControl(responseHeaders["Cache-Control"])
        guard !response.has("no-store"), !CacheControl(requestHeaders["Cache-Control"]).has("no-store") else {
            return false
        }
        guard CacheVary.names(in: responseHeaders) != nil else { return false }
        if hasCredentials {
            guard response.has("public") || response.has("s-maxage") || response.has("must-revalidate") else {
                return false
            }
        }
        return CacheFreshness.hasExplicitExpiration(responseHeaders) || responseHeaders["ETag"] != nil
            || responseHeaders["Last-Modified"] != nil
    }

    /// The fields kept from a response: all but ``unstoredFieldNames`` and those `Connection` names.
    static func storedFields(_ headers: HTTPHeaders) -> HTTPHeaders {
        let connectionNames = (headers["Connection"] ?? "").split(separator: ",").map {
            CacheControl.trim($0).lowercased()
        }
        let dropped = unstoredFieldNames.union(connectionNames)
        return HTTPHeaders(headers.filter { !dropped.contains($0.name.lowercased()) })
    }

    /// The credential part of a cache key: a SHA-256 of the request's credential fields (names
    /// from ``HTTPHeader/requestCredentialNames`` and `extraNames`, any case), or `nil` without any.
    /// - Parameters:
    ///   - requestHeaders: The request's header fields.
    ///   - extraNames: More credential field names (a session's `sensitiveHeaders`).
    static func credentialKey(_ requestHeaders: HTTPHeaders, extraNames: Set<String>) -> String? {
        let names = HTTPHeader.requestCredentialNames.union(extraNames.map { $0.lowercased() })
        let credentials = requestHeaders.filter { names.contains($0.name.lowercased()) }
            .map { "\($0.name.lowercased()):\($0.value)" }.sorted()
        guard !credentials.isEmpty else { return nil }
        return SHA256.hex(credentials.joined(separator: "\n"))
    }
}
