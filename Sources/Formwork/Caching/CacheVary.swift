/// Matching a stored response to a request by the fields its `Vary` names (RFC 9111 §4.1).
enum CacheVary {
    /// One field a response varies on, with the value the request that got it sent.
    struct Value: Sendable, Equatable, Codable {
        /// The field name, lower case.
        var name: String
        /// The normalised value (`nil`: the request had no such field). A credential field holds
        /// a SHA-256 of its value, never the value.
        var value: String?
    }

    /// The field names `Vary` lists (lower case, sorted, without duplicates), or `nil` for
    /// `Vary: *`, which never matches a later request.
    /// - Parameter headers: The response's header fields.
    static func names(in headers: HTTPHeaders) -> [String]? {
        guard let vary = headers["Vary"] else { return [] }
        let names = vary.split(separator: ",").map { CacheControl.trim($0).lowercased() }.filter {
            !$0.isEmpty
        }
        if names.contains("*") { return nil }
        return Array(Set(names)).sorted()
    }

    /// The request's values of `names`, as stored with a response.
    /// - Parameters:
    ///   - names: The names from ``names(in:)``.
    ///   - request: The request's header fields.
    /// - Returns: One value per name, in the same order.
    static func values(for names: [String], request: HTTPHeaders) -> [Value] {
        names.map { Value(name: $0, value: normalized(name: $0, request[$0])) }
    }

    /// Whether a request selects the stored response: every varying field has the same
    /// normalised value (both absent counts as the same).
    /// - Parameters:
    ///   - stored: The values stored with the response.
    ///   - request: The new request's header fields.
    static func matches(_ stored: [Value], request: HTTPHeaders) -> Bool {
        stored.allSatisfy { normalized(name: $0.name, request[$0.name]) == $0.value }
    }

    /// Fields whose values are case-insensitive (language tags, content codings, charsets), so
    /// that `en-US` and `en-us` select the same response (RFC 9111 §4.1).
    static let caseInsensitiveNames: Set<String> = ["accept-language", "accept-encoding", "accept-charset"]

    /// A value with surrounding whitespace and whitespace around commas removed, so that
    /// `gzip, br` and `gzip,br` select the same response, and lower-cased for the fields of
    /// ``caseInsensitiveNames``. Credentials are replaced by their hash.
    private static func normalized(name: String, _ value: String?) -> String? {
        guard let value else { return nil }
        let parts = value.split(separator: ",", omittingEmptySubsequences: false).map {
            CacheControl.trim($0)
        }
        let joined =
            caseInsensitiveNames.contains(name)
            ? parts.joined(separator: ",").lowercased() : parts.joined(separator: ",")
        return HTTPHeader.requestCredentialNames.contains(name) ? "sha256:" + SHA256.hex(joined) : joined
    }
}
