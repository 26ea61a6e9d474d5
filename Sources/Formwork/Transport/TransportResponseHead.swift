import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response head as a transport reports it, through ``TransportEvents/receiveResponseHead(_:)``:
/// the status, the header fields and the HTTP version, or the `HTTPURLResponse` the transport
/// already holds.
///
/// A transport that reads the head off the wire makes one from its parts
/// (``init(url:statusCode:httpVersion:headerFields:)``). Formwork reads the status and the few
/// fields it needs from the head itself, and makes the `HTTPURLResponse` apps see only when
/// something asks for one: ``Request/response``, a `DataResponse`'s `response`, an error, a
/// validator, an event monitor, the HTTP cache or a download. On Linux, making one costs more than
/// the rest of what Formwork does with a small response (corelibs capitalizes every field name and
/// parses the content type as it makes it), and most requests that decode a value never read it.
///
/// A transport that holds an `HTTPURLResponse` already (as ``URLSessionTransport`` does) wraps it
/// with ``init(_:)``: the head keeps it, reads the status and fields from it, and
/// ``httpURLResponse()`` returns it as it is.
public struct TransportResponseHead: Sendable {
    /// The URL the response answers (after any redirects the transport followed).
    public var url: URL {
        didSet { keepNoResponse() }
    }
    /// The HTTP status code.
    public var statusCode: Int {
        didSet { keepNoResponse() }
    }
    /// The protocol version, e.g. `"HTTP/1.1"`. A head made from an `HTTPURLResponse` says
    /// `"HTTP/1.1"`: the response does not tell its version.
    public var httpVersion: String {
        didSet { keepNoResponse() }
    }
    /// The header fields in the order received, spelled as received; a name may repeat. A head made
    /// from an `HTTPURLResponse` lists the response's fields, one per name, in no set order (they
    /// are read from the response each time: read them once).
    public var headerFields: [HTTPHeader] {
        get {
            switch fields {
            case .list(let list): list
            case .response(let response): Self.headerFields(of: response)
            }
        }
        set { fields = .list(newValue) }
    }
    /// Where the response came from, when Formwork's HTTP cache layer delivers it (nil: from the
    /// network, as every transport reports).
    var cacheDelivery: CacheDelivery?

    /// The fields as a transport gave them: a list, or the response they are read from (which the
    /// head then keeps, to hand it out as it is).
    private enum Fields: Sendable {
        case list([HTTPHeader])
        case response(HTTPURLResponse)
    }

    private var fields: Fields

    /// Creates a response head from its parts.
    /// - Parameters:
    ///   - url: The URL the response answers.
    ///   - statusCode: The HTTP status code.
    ///   - httpVersion: The protocol version, e.g. `"HTTP/1.1"`.
    ///   - headerFields: The header fields in the order received; a name may repeat.
    public init(url: URL, statusCode: Int, httpVersion: String = "HTTP/1.1", headerFields: [HTTPHeader]) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.fields = .list(headerFields)
    }

    /// Creates the head of a response the transport holds already. The head keeps `response`:
    /// ``httpURLResponse()`` returns it as it is, and the status and fields are read from it,
    /// nothing is copied (changing a property of the head lets go of it).
    /// - Parameter response: The response.
    public init(_ response: HTTPURLResponse) {
        self.url = response.url ?? Self.unknownURL
        self.statusCode = response.statusCode
        self.httpVersion = "HTTP/1.1"
        self.fields = .response(response)
    }

    /// The URL of a head made from a response without one (Foundation always gives one).
    private static let unknownURL = URL(string: "about:blank")!

    /// The response this head was made from, while it is unchanged.
    var response: HTTPURLResponse? {
        if case .response(let response) = fields { return response }
        return nil
    }

    /// A property changed: the head no longer is its response. Its fields become a list first.
    private mutating func keepNoResponse() {
        if case .response(let response) = fields { fields = .list(Self.headerFields(of: response)) }
    }

    /// The fields of `response`, one per name.
    private static func headerFields(of response: HTTPURLResponse) -> [HTTPHeader] {
        response.allHeaderFields.compactMap { name, value in
            guard let name = name as? String else { return nil }
            return HTTPHeader(name: name, value: value as? String ?? String(describing: value))
        }
    }

    /// The value of the field `name` (ASCII letter case ignored), as the `HTTPURLResponse` would
    /// give it: the values of a repeated field joined with `", "`.
    /// - Parameter name: The field name.
    /// - Returns: The value, or nil when the head has no such field.
    public func value(forHTTPHeaderField name: String) -> String? {
        guard case .list(let list) = fields else { return response?.value(forHTTPHeaderField: name) }
        var joined: String?
        for field in list where field.name.equalsIgnoringASCIICase(name) {
            joined = joined.map { "\($0), \(field.value)" } ?? field.value
        }
        return joined
    }

    /// The fields as Formwork keeps them: a field that repeats (in any letter case) becomes one,
    /// under the spelling seen first, with its values joined by `", "` (as in
    /// ``httpURLResponse()``).
    var joinedHeaders: HTTPHeaders {
        guard case .list(let list) = fields else { return response.map(HTTPHeaders.init(response:)) ?? [:] }
        var headers = HTTPHeaders()
        for field in list where headers.value(for: field.name) == nil {
            headers.update(name: field.name, value: value(forHTTPHeaderField: field.name) ?? field.value)
        }
        return headers
    }

    /// The `HTTPURLResponse` of this head: the one it was made from, or one made now. A field that
    /// repeats (in any letter case) becomes one field, under the spelling seen first, with its
    /// values joined by `", "`.
    /// - Returns: The response, or nil if Foundation refuses to make one.
    public func httpURLResponse() -> HTTPURLResponse? {
        guard case .list(let list) = fields else { return response }
        var fields: [String: String] = [:]
        fields.reserveCapacity(list.count)
        var spellings: [String: String] = [:]  // lowercased → the spelling seen first
        spellings.reserveCapacity(list.count)
        for field in list {
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
