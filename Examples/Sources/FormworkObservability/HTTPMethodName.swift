/// A request method as the HTTP conventions record it: one of the known methods, or `_OTHER`
/// (with the original in `http.request.method_original`), so that a metric's dimensions stay
/// bounded whatever a caller sends.
struct HTTPMethodName: Sendable, Equatable {
    /// The methods the conventions know (RFC 9110, RFC 5789 and `QUERY`).
    static let known: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE",
    ]

    /// `http.request.method`: a known method or `_OTHER`.
    let recorded: String
    /// `http.request.method_original`, when it differs from ``recorded``.
    let original: String?

    init(_ method: String?) {
        let method = method ?? "GET"
        if Self.known.contains(method) {
            recorded = method
            original = nil
        } else {
            recorded = "_OTHER"
            original = method
        }
    }

    /// The span's name: `{method}` or `{method} {template}`; `HTTP` for an unknown method.
    func spanName(template: String?) -> String {
        let method = recorded == "_OTHER" ? "HTTP" : recorded
        guard let template, !template.isEmpty else { return method }
        return "\(method) \(template)"
    }
}
