import Formwork
import Foundation

/// `url.full` as OpenTelemetry asks for it: user name and password replaced by `REDACTED`, and the
/// values of sensitive query parameters replaced by `REDACTED` — the conventions' list
/// (`AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`) and the ``Redaction``'s own
/// `queryItems`, compared without letter case.
enum RedactedURL {
    /// The placeholder OpenTelemetry's conventions name.
    static let placeholder = "REDACTED"
    /// The query parameters the conventions redact by default (lowercased).
    static let conventionQueryItems: Set<String> = ["awsaccesskeyid", "signature", "sig", "x-goog-signature"]

    /// The URL as text for `url.full`.
    /// - Parameters:
    ///   - url: The URL sent.
    ///   - redaction: The session's redaction (its `queryItems` are hidden too).
    /// - Returns: The URL with credentials and sensitive query values redacted.
    static func full(_ url: URL, redaction: Redaction) -> String {
        var text = url.absoluteString
        if url.user != nil || url.password != nil, let schemeEnd = text.range(of: "://"),
            let at = text[schemeEnd.upperBound...].firstIndex(of: "@"),
            !text[schemeEnd.upperBound..<at].contains("/")
        {
            text.replaceSubrange(schemeEnd.upperBound..<at, with: "\(placeholder):\(placeholder)")
        }
        let hidden = conventionQueryItems.union(redaction.queryItems)
        guard let queryStart = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[queryStart...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: queryStart)..<fragmentStart]
        let shown = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = (name.removingPercentEncoding ?? name).lowercased()
            return hidden.contains(decoded) ? "\(name)=\(placeholder)" : String(pair)
        }
        return String(text[..<queryStart]) + "?" + shown.joined(separator: "&") + text[fragmentStart...]
    }
}
