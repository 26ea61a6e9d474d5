import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response head as a transport read it: the status, the header fields in the order they
/// arrived (a name may repeat), and the HTTP version.
///
/// A transport that does not already hold an `HTTPURLResponse` reports its heads this way, through
/// ``TransportEvents/receiveResponseHead(_:)``. Formwork reads the status and the few fields it
/// needs from the head itself, and makes the `HTTPURLResponse` apps see only when something asks
/// for one: ``Request/response``, a `DataResponse`'s `response`, an error, a validator, an event
/// monitor, the HTTP cache or a download. On Linux, making one costs more than the rest of what
/// Formwork does with a small response (corelibs capitalizes every field name and parses the
/// content type as it makes it), and most requests that decode a value never read it.
public struct TransportResponseHead: Sendable {
    /// The URL the response answers (after any redirects the transport followed).
    public var url: URL
    /// The HTTP status code.
    public var statusCode: Int
    /// The protocol version, e.g. `"HTTP/1.1"`.
    public var httpVersion: String
    /// The header fields in the order received, spelled as received; a name may repeat.
    public var headerFields: [HTTPHeader]
    /// Where the response came from, when Formwork's HTTP cache layer delivers it (nil: from the
    /// network, as every transport reports).
    var cacheDelivery: CacheDelivery?

    /// Creates a response head.
    /// - Parameters:
    ///   - url: The URL the response answers.
    ///   - statusCode: The HTTP status code.
    ///   - httpVersion: The protocol version, e.g. `"HTTP/1.1"`.
    ///   - headerFields: The header fields in the order received; a name may repeat.
    public init(url: URL, statusCode: Int, httpVersion: String = "HTTP/1.1", headerFields: [HTTPHeader]) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.headerFields = headerFields
    }

    /// The value of the field `name` (ASCII letter case ignored), as the `HTTPURLResponse` would
    /// give it: the values of a repeated field joined with `", "`.
    /// - Parameter name: The field name.
    /// - Returns: The value, or nil when the head has no such field.
    public func value(forHTTPHeaderField name: String) -> String? {
        var joined: String?
        for field in headerFields where field.name.equalsIgnoringASCIICase(name) {
            joined = joined.map { "\($0), \(field.value)" } ?? field.value
        }
        return joined
    }

    /// The fields as Formwork keeps them: a field that repeats (in any letter case) becomes one,
    /// under the spelling seen first, with its values joined by `", "` (as in
    /// ``httpURLResponse()``).
    var joinedHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        for field in headerFields where headers.value(for: field.name) == nil {
            headers.add(name: field.name, value: value(forHTTPHeaderField: field.name) ?? field.value)
        }
        return headers
    }

    /// The `HTTPURLResponse` of this head. A field that repeats (in any letter case) becomes one
    /// field, under the spelling seen first, with its values joined by `", "`.
    /// - Returns: The response, or nil if Foundation refuses to make one.
    public func httpURLResponse() -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headerFields.count)
        var spellings: [String: String] = [:]  // lowercased → the spelling seen first
        spellings.reserveCapacity(headerFields.count)
        for field in headerFields {
            let key = field.name.asciiLowercased()
            if let first = spellings[key], let present = fields[first] {
                fields[first] = "\(present), \(field.value)"
            } else {
                spellings[key] = field.name
                fields[field.name] = field.value
            }
        }
        return HTTPURLResponse(
            url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
    }
}
