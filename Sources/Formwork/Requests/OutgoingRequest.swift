import Foundation

/// The request an adapter changes: what an attempt will send, before Formwork checks it and turns
/// it into the `URLRequest` handed to the transport.
///
/// It has the members adapters use on `URLRequest` (``url``, ``httpMethod``, ``httpBody``,
/// ``timeoutInterval``), and its header fields are Formwork's own ``HTTPHeaders``, read and set
/// with their subscript (`request.headers[name]`, where a `URLRequest` has `value(forHTTPHeaderField:)`
/// and `setValue(_:forHTTPHeaderField:)`): every value is kept exactly as set. After the whole adapter chain, every header is checked, and a name or value
/// that cannot be sent (a value with CR, LF or NUL, such as a token read from a file with its
/// trailing newline) fails the request with ``NetworkError/Kind/invalidHeader`` naming the header,
/// before anything is sent, on every platform. (On Linux, corelibs' `URLRequest.setValue(_:
/// forHTTPHeaderField:)` drops such a value silently, so the request would go out without it.)
///
/// ```swift
/// let auth = Adapter { request in
///     var request = request
///     request.headers["Authorization"] = "Bearer \(try await tokens.current())"
///     return request
/// }
/// ```
///
/// Everything else of the request (the body stream, the cache policy, cookies, the main document
/// URL...) is kept as the `URLRequest` it was made from holds it; read or replace that through
/// ``urlRequest`` when an adapter needs Foundation's own API.
public struct OutgoingRequest: Sendable, Hashable {
    /// The request without its header fields: ``headers`` holds them.
    private var base: URLRequest

    /// The header fields, in order, each value as set (nothing is dropped or checked here).
    public var headers: HTTPHeaders

    /// Makes the request to adapt from a `URLRequest`, with its header fields (sorted by name:
    /// Foundation keeps no order) and everything else it holds.
    /// - Parameter urlRequest: The request.
    public init(_ urlRequest: URLRequest) {
        base = urlRequest
        headers = urlRequest.headers
        if urlRequest.allHTTPHeaderFields != nil { base.allHTTPHeaderFields = nil }
    }

    /// The whole request as a `URLRequest`, for an adapter that needs Foundation's API (a body
    /// stream, a signing library that takes a `URLRequest`).
    ///
    /// Reading gives every header as stored, also a value that cannot be sent (the check after
    /// the adapters rejects it). Setting replaces everything, headers included, with what the
    /// `URLRequest` holds: a header set on it with `setValue(_:forHTTPHeaderField:)` or
    /// `addValue(_:forHTTPHeaderField:)` went through Foundation, which on Linux drops a value
    /// with CR, LF or NUL, so set headers on this request's ``headers`` after assigning it instead.
    public var urlRequest: URLRequest {
        get {
            var request = base
            request.headers = headers
            return request
        }
        set { self = OutgoingRequest(newValue) }
    }

    /// The URL.
    public var url: URL? {
        get { base.url }
        set { base.url = newValue }
    }

    /// The HTTP method, e.g. `"GET"` (as on `URLRequest`, setting `nil` means `"GET"`).
    public var httpMethod: String? {
        get { base.httpMethod }
        set { base.httpMethod = newValue }
    }

    /// The body bytes, when the body is in memory (a streamed body is in ``urlRequest``'s
    /// `httpBodyStream`). Setting it replaces a body stream, as on `URLRequest`.
    public var httpBody: Data? {
        get { base.httpBody }
        set { base.httpBody = newValue }
    }

    /// The idle timeout in seconds: the longest wait for the next bytes.
    public var timeoutInterval: TimeInterval {
        get { base.timeoutInterval }
        set { base.timeoutInterval = newValue }
    }

    /// The header fields as a dictionary keyed by each header's spelling, `nil` when there are
    /// none. Setting replaces every header (sorted by name) and keeps every value as given.
    var allHTTPHeaderFields: [String: String]? {
        get { headers.isEmpty ? nil : headers.dictionary }
        set { headers = newValue.map(HTTPHeaders.init) ?? HTTPHeaders() }
    }

    /// The value of a header field (the name in any letter case).
    /// - Parameter field: The header name.
    /// - Returns: The value, or `nil` when the request has no such header.
    func value(forHTTPHeaderField field: String) -> String? {
        headers[field]
    }

    /// Sets a header field, replacing its value (the name in any letter case); `nil` removes it.
    /// The value is kept as given, also one that cannot be sent: the check after the adapters
    /// rejects it, naming the header.
    /// - Parameters:
    ///   - value: The value, or `nil` to remove the header.
    ///   - field: The header name.
    mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        headers[field] = value
    }

    /// Adds a value to a header field: appended to an existing value after a comma (as
    /// `URLRequest` does), or set when the request has no such header.
    /// - Parameters:
    ///   - value: The value to add.
    ///   - field: The header name.
    mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        headers[field] = headers[field].map { "\($0),\(value)" } ?? value
    }
}
