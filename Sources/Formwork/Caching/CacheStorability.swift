/// What the cache may store (RFC 9111 §3) and which header fields it keeps.
enum CacheStorability {
    /// The fields a cache leaves out (RFC 9111 §3.1): hop-by-hop fields (RFC 9110 §7.6.1) and
    /// the proxy fields meant for the connection's proxy. `Set-Cookie` is kept: it is part of the
    /// response (see the Caching article for how it stays private).
    static let unstoredFieldNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization", "proxy-authentication-info", "trailer",
    ]

    /// Status codes stored with a validator alone: those cacheable by default (RFC 9110 §15.1),
    /// except `206` (Formwork does not combine partial responses).
    static let storableStatusCodes = CacheFreshness.heuristicallyCacheableStatusCodes.subtracting([206])

    /// The statuses whose caching requirements Formwork meets, for `must-understand`.
    static let understoodStatusCodes = storableStatusCodes.union([
        302, 303, 307, 400, 401, 403, 406, 408, 409, 429, 500, 502, 503, 504,
    ])

    /// Whether a response may be stored.
    ///
    /// Only `GET` responses; neither the request nor the response says `no-store` (the response's
    /// is ignored with `must-understand` for a status of ``understoodStatusCodes``; any other
    /// status with `must-understand` is not stored); a final
    /// status other than `206` and `304`; not `Vary: *`; and some way to reuse it. A status of
    /// ``storableStatusCodes`` needs an explicit expiration time or a validator (a response with
    /// neither could never be served); any other status (a `302`, a `404`'s neighbours, a `503`)
    /// needs an explicit expiration time (`max-age` or `Expires`, RFC 9111 §3), or `public` or
    /// `private` with a validator. `private` is fine (this is a private cache). A request with
    /// credentials (RFC 9111 §3.5) is stored only when the response says `public`, `s-maxage` or
    /// `must-revalidate`, and then under its credential.
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
        guard method == "GET", (200...599).contains(statusCode), statusCode != 206, statusCode != 304 else {
            return false
        }
        let response = CacheControl(responseHeaders["Cache-Control"])
        if response.has("must-understand") {
            // RFC 9111 §5.2.2.3: only a cache that understands the status stores it, and may
            // then ignore `no-store`.
            guard understoodStatusCodes.contains(statusCode) else { return false }
        } else if response.has("no-store") {
            return false
        }
        guard !CacheControl(requestHeaders["Cache-Control"]).has("no-store") else { return false }
        guard CacheVary.names(in: responseHeaders) != nil else { return false }
        if hasCredentials {
            guard response.has("public") || response.has("s-maxage") || response.has("must-revalidate") else {
                return false
            }
        }
        let hasValidator = responseHeaders["ETag"] != nil || responseHeaders["Last-Modified"] != nil
        if CacheFreshness.hasExplicitExpiration(responseHeaders) { return true }
        if storableStatusCodes.contains(statusCode) { return hasValidator }
        return hasValidator && (response.has("public") || response.has("private"))
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
