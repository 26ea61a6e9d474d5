import NIOCore
import NIOHTTP1

/// A complete request: the head and the whole body, collected before routing.
struct DemoRequest: Sendable {
    var method: HTTPMethod
    /// The request target as sent, e.g. `/echo?a=1`.
    var uri: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var body: [UInt8]
    /// Whether the connection stays open after the response (HTTP/1.1 default, `Connection` header).
    var keepAlive: Bool

    /// The path part of the target (still percent-encoded), e.g. `/echo`.
    var path: Substring {
        uri.firstIndex(of: "?").map { uri[..<$0] } ?? Substring(uri)
    }

    /// The raw query string without the `?`, or empty.
    var query: Substring {
        uri.firstIndex(of: "?").map { uri[uri.index(after: $0)...] } ?? ""
    }

    /// The percent-decoded query items, in order.
    var queryItems: [(name: String, value: String)] {
        QueryString.items(query)
    }

    /// The first query value named `name`.
    func queryValue(_ name: String) -> String? {
        QueryString.value(name, in: queryItems)
    }

    /// The `Content-Type` header, if any.
    var contentType: String? {
        headers.first(name: "content-type")
    }
}

/// A response to write. The handler adds `Content-Length` and the connection headers.
struct DemoResponse: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// nil for a response without a body (e.g. 204, 304).
    var body: [UInt8]?
    /// A body too large to hold, written piece by piece with back-pressure; when set, `body` is
    /// ignored and `Content-Length` comes from the stream (none: chunked).
    var stream: StreamedBody?
    /// A body that is a part of a file on disk, sent with `sendfile` where it can be; when set,
    /// `body` and `stream` are ignored and `Content-Length` comes from it.
    var file: FileBody?

    init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: [UInt8]?) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is streamed.
    init(status: HTTPResponseStatus, headers: HTTPHeaders, stream: StreamedBody) {
        self.status = status
        self.headers = headers
        self.body = nil
        self.stream = stream
    }

    /// A response whose body is a part of a file.
    init(status: HTTPResponseStatus, headers: HTTPHeaders, file: FileBody) {
        self.status = status
        self.headers = headers
        self.body = nil
        self.file = file
    }

    static let jsonContentType = "application/json"
    static let textContentType = "text/plain; charset=utf-8"
    static let htmlContentType = "text/html; charset=utf-8"

    /// A JSON body (sorted keys).
    static func json(_ value: JSON, status: HTTPResponseStatus = .ok) -> DemoResponse {
        raw(value.serialized, contentType: jsonContentType, status: status)
    }

    /// A body sent as it is with the given content type.
    static func raw(_ text: String, contentType: String, status: HTTPResponseStatus = .ok) -> DemoResponse {
        DemoResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// A plain-text body.
    static func text(_ text: String, status: HTTPResponseStatus = .ok) -> DemoResponse {
        raw(text, contentType: textContentType, status: status)
    }

    /// No body at all (no `Content-Length` for 1xx/204/304; `Content-Length: 0` otherwise).
    static func empty(status: HTTPResponseStatus) -> DemoResponse {
        DemoResponse(status: status, body: status.mayHaveResponseBody ? [] : nil)
    }

    /// A 400 response for a bad query parameter.
    static func badRequest(_ message: String) -> DemoResponse {
        json(["error": .string(message)], status: .badRequest)
    }
}
