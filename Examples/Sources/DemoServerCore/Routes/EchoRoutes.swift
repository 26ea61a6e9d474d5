import NIOHTTP1

/// Endpoints that reflect the request: `/echo` (and everything below it) and `/headers/set`.
enum EchoRoutes {
    static let routes: [Route] = [
        Route(nil, .subtree("/echo"), respond: echo),
        Route([.GET], .exact("/headers/set"), respond: setHeaders),
    ]

    /// `ANY /echo[/...]`: describes the request as JSON.
    static func echo(_ request: DemoRequest) -> DemoResponse {
        var headers: [String: JSON] = [:]
        for name in Set(request.headers.map { $0.name.lowercased() }) {
            headers[name] = .string(request.headers[canonicalForm: name].joined(separator: ", "))
        }
        let bodyText = request.body.isEmpty ? nil : validUTF8(request.body)
        let mediaType = request.contentType?
            .split(separator: ";", maxSplits: 1).first?
            .trimmingWhitespace().lowercased()
        let form: JSON =
            mediaType == "application/x-www-form-urlencoded"
            ? .multiMap(QueryString.items(Substring(decoding: request.body, as: UTF8.self)))
            : .null
        let json = request.body.isEmpty ? nil : JSON.parse(request.body)
        return .json([
            "method": .string(request.method.rawValue),
            "path": .string(String(request.path)),
            "query": .string(String(request.query)),
            "queryItems": .multiMap(request.queryItems),
            "headers": .object(headers),
            "body": .string(orNull: bodyText),
            "bodyLength": .int(request.body.count),
            "contentType": .string(orNull: request.contentType),
            "json": json ?? .null,
            "form": form,
        ])
    }

    /// Framing headers that a client may not override: changing them would break the response.
    static let protectedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]

    /// `GET /headers/set?Name=Value&...`: `{}` with each pair added as a response header
    /// (a repeated name is sent repeatedly; `Content-Type` replaces the JSON one).
    static func setHeaders(_ request: DemoRequest) -> DemoResponse {
        var response = DemoResponse.json([:])
        // Headers the server set itself (Content-Type) are replaced, the first time they are named.
        var ours = Set(response.headers.map { $0.name.lowercased() })
        for item in request.queryItems {
            let lowered = item.name.lowercased()
            guard !protectedHeaders.contains(lowered), isToken(item.name), isFieldValue(item.value) else {
                continue
            }
            if ours.remove(lowered) != nil {
                response.headers.remove(name: item.name)
            }
            response.headers.add(name: item.name, value: item.value)
        }
        return response
    }
}

extension EchoRoutes {
    /// The bytes as a string, or nil when they are not valid UTF-8.
    static func validUTF8(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// Whether `name` is a valid header name (an RFC 9110 token).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// Whether `value` can be sent as a header value (no control characters but tab).
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        return self[first...last]
    }
}
