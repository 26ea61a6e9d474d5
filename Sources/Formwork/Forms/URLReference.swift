/// Resolves a form's URL against the session's base URL, as RFC 3986 section 5.2 does.
///
/// A reference with a scheme (`https://…`) is already absolute and is used as it is: a form's
/// absolute URL wins over the base. Anything else is resolved against the base, on the text, before
/// it is checked and percent-encoded (see `URLText`):
///
/// - `users` against `https://api.example.com/v1/` is `https://api.example.com/v1/users`, but
///   against `https://api.example.com/v1` (no trailing slash) it is `https://api.example.com/users`:
///   the base's last segment is replaced, as in a browser;
/// - `/users` is `https://api.example.com/users` against either: a leading slash starts at the host;
/// - `?page=2` keeps the base's path, `//cdn.example.com/a` keeps only its scheme, and `.` and `..`
///   segments are removed (never above the root).
enum URLReference {
    /// The five parts of a URL reference (RFC 3986, appendix B); `nil` when a part is absent.
    struct Parts: Equatable {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?

        /// Splits `text` into its parts; every text is a reference.
        init(_ text: String) {
            var rest = Substring(text)
            scheme = nil
            if let colon = rest.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
                rest[colon] == ":", let first = rest.first, first.isASCII, first.isLetter,
                rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                )
            {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            authority = nil
            if rest.hasPrefix("//") {
                let start = rest.index(rest.startIndex, offsetBy: 2)
                let end =
                    rest[start...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
                authority = String(rest[start..<end])
                rest = rest[end...]
            }
            fragment = nil
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            query = nil
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = rest[..<mark]
            }
            path = String(rest)
        }

        init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            (self.scheme, self.authority, self.path, self.query, self.fragment) = (
                scheme, authority, path, query, fragment
            )
        }

        /// The parts put back together (RFC 3986, section 5.3).
        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }

    /// Whether `text` starts with a scheme and a colon, i.e. is an absolute URL, not a reference.
    static func hasScheme(_ text: String) -> Bool {
        Parts(text).scheme != nil
    }

    /// `reference` resolved against `base` (RFC 3986, section 5.2.2, strict).
    /// - Parameters:
    ///   - reference: The form's URL text, already trimmed.
    ///   - base: The base URL's text, already trimmed.
    /// - Returns: The target URL's text, not yet checked or percent-encoded.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidURL`` when the reference is
    ///   relative and the base is not an absolute URL with a host.
    static func resolve(_ reference: String, against base: String) throws(NetworkError) -> String {
        let relative = Parts(reference)
        if relative.scheme != nil { return reference }
        let base = Parts(base)
        guard let scheme = base.scheme, base.authority != nil else {
            throw NetworkError(
                .invalidURL,
                failureReason:
                    "The session's baseURL \"\(base.text)\" is not an absolute URL with a host (such as "
                    + "https://api.example.com/v1/), so \"\(reference)\" cannot be resolved against it.")
        }
        var target = Parts(scheme: scheme, authority: nil, path: "", query: nil, fragment: relative.fragment)
        if let authority = relative.authority {
            target.authority = authority
            target.path = removingDotSegments(relative.path)
            target.query = relative.query
        } else {
            target.authority = base.authority
            if relative.path.isEmpty {
                target.path = base.path
                target.query = relative.query ?? base.query
            } else {
                if relative.path.hasPrefix("/") {
                    target.path = removingDotSegments(relative.path)
                } else {
                    target.path = removingDotSegments(merging(relative.path, into: base))
                }
                target.query = relative.query
            }
        }
        return target.text
    }

    /// The reference's path appended to the base path's directory (RFC 3986, section 5.2.3).
    private static func merging(_ path: String, into base: Parts) -> String {
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// The path without its `.` and `..` segments (RFC 3986, section 5.2.4).
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []  // segments, each with its leading "/" when it had one
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
