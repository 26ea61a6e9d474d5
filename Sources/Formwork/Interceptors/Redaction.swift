import Foundation

/// Which header and query-parameter values logs and cURL commands must not show.
public struct Redaction: Sendable, Equatable {
    /// Header names whose values are hidden (case-insensitive).
    public var headers: Set<String>
    /// Query parameter names whose values are hidden (case-insensitive).
    public var queryItems: Set<String>
    /// What is shown instead.
    public var placeholder: String

    /// The default: the credential headers `Authorization`, `Proxy-Authorization`, `Cookie` and
    /// `Set-Cookie` (Formwork's one list, also used for redirects and resume data).
    public static let standard = Redaction()

    /// Creates a redaction.
    /// - Parameters:
    ///   - headers: Extra header names to hide, added to the standard ones.
    ///   - queryItems: Query parameter names to hide, e.g. `["token", "sign"]`.
    ///   - placeholder: What is shown instead (default `<redacted>`).
    public init(headers: Set<String> = [], queryItems: Set<String> = [], placeholder: String = "<redacted>") {
        self.headers = HTTPHeader.credentialNames.union(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.placeholder = placeholder
    }

    /// The header's value, or the placeholder when it is redacted.
    func value(ofHeader name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? placeholder : value
    }

    /// The URL as text with redacted query values replaced (for display only: the placeholder is
    /// not percent-encoded).
    func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        let text = url.absoluteString
        guard !queryItems.isEmpty, let queryStart = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: queryStart)..<fragmentStart]
        let shown = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = (name.removingPercentEncoding ?? name).lowercased()
            return queryItems.contains(decoded) ? "\(name)=\(placeholder)" : String(pair)
        }
        return String(text[..<queryStart]) + "?" + shown.joined(separator: "&") + text[fragmentStart...]
    }
}

extension URLRequest {
    /// The request as a `curl` command, with credentials redacted, for pasting into a terminal.
    /// - Parameter redaction: What to hide (default: `Authorization`, `Cookie`, ...).
    /// - Returns: A one-line `curl` command.
    public func cURLDescription(redacting redaction: Redaction = .standard) -> String {
        var parts = ["curl", "-v"]
        let method = httpMethod ?? "GET"
        if method != "GET" { parts.append("-X \(method)") }
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: {
            $0.key.lowercased() < $1.key.lowercased()
        }) {
            parts.append("-H \(Self.shellQuoted("\(name): \(redaction.value(ofHeader: name, value))"))")
        }
        if let body = httpBody, !body.isEmpty {
            let text = String(data: body, encoding: .utf8) ?? "<\(body.count) bytes of binary data>"
            parts.append("--data-binary \(Self.shellQuoted(text))")
        } else if httpBodyStream != nil {
            parts.append("--data-binary @-  # streamed body")
        }
        parts.append(Self.shellQuoted(redaction.url(url)))
        return parts.joined(separator: " ")
    }

    /// Single-quotes a string for POSIX shells.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension Request {
    /// The latest attempt's request as a `curl` command with credentials redacted, or `nil`
    /// before it is built.
    /// - Parameter redaction: What to hide.
    /// - Returns: A one-line `curl` command.
    public func cURLDescription(redacting redaction: Redaction = .standard) -> String? {
        request?.cURLDescription(redacting: redaction)
    }
}
