import Foundation

/// What makes two requests identical for coalescing: everything of the final `URLRequest` (after
/// every adapter) that can change what the server answers.
///
/// Part of the key: the method, the whole URL (query included, as sent), every header (names in
/// any letter case, in any order; values exactly), the `URLRequest`'s cache policy and the form's ``CachePolicy``, its timeout
/// and whether it sends cookies. Not part of it: what URLSession's configuration adds to every
/// request of the session (the same for all of them), and the W3C trace context fields
/// (`traceparent`, `tracestate`, `baggage`), which a tracing adapter makes different for every
/// request without changing the answer: a request that joins another's exchange sends nothing, so
/// the server sees the first request's trace context. Only GET and HEAD requests without a body
/// have a key: nothing else is ever coalesced.
struct CoalescingKey: Hashable, Sendable {
    let method: String
    let url: String
    /// Header names lowercased, sorted by name, then value.
    let headers: [Header]
    let cachePolicy: UInt
    let timeout: TimeInterval
    let handlesCookies: Bool
    /// The form's policy for Formwork's HTTP cache: two requests with different policies never
    /// share a network request.
    let formCachePolicy: CachePolicy?

    /// One request header, its name lowercased.
    struct Header: Hashable, Sendable {
        let name: String
        let value: String
    }

    /// Header names (lowercased) left out of the key: the W3C trace context fields.
    static let traceContextHeaders: Set<String> = ["traceparent", "tracestate", "baggage"]

    /// The methods whose identical requests may share one network request.
    static let methods: Set<String> = ["GET", "HEAD"]

    /// The key of `request`, or `nil` when it must never be coalesced (another method than GET or
    /// HEAD, a body, a body stream, no URL).
    /// - Parameters:
    ///   - request: The final request, after adapters.
    ///   - formCachePolicy: The form's ``CachePolicy`` (`nil` when the request has none).
    init?(_ request: URLRequest, formCachePolicy: CachePolicy? = nil) {
        let method = (request.httpMethod ?? "GET").uppercased()
        guard Self.methods.contains(method), request.httpBody == nil, request.httpBodyStream == nil,
            let url = request.url
        else { return nil }
        self.method = method
        self.url = url.absoluteString
        self.headers = (request.allHTTPHeaderFields ?? [:])
            .map { Header(name: $0.key.lowercased(), value: $0.value) }
            .filter { !Self.traceContextHeaders.contains($0.name) }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        self.cachePolicy = request.cachePolicy.rawValue
        self.timeout = request.timeoutInterval
        self.handlesCookies = request.httpShouldHandleCookies
        self.formCachePolicy = formCachePolicy
    }
}
