// MARK: - HTTPHeader

/// A single HTTP header field: a name and a value.
///
/// Two headers are equal when their names match case-insensitively and their values match
/// exactly. `description` prints `Name: value`, except that the values of `Authorization`,
/// `Proxy-Authorization`, `Cookie` and `Set-Cookie` are printed as `<redacted>`.
public struct HTTPHeader: Hashable, Sendable, CustomStringConvertible {
    /// The field name, e.g. `"Content-Type"`, spelled as given.
    public let name: String
    /// The field value, e.g. `"application/json"`.
    public let value: String

    /// Creates a header. Nothing is checked here: Formwork checks every header before a request
    /// is sent.
    /// - Parameters:
    ///   - name: The field name; compared case-insensitively.
    ///   - value: The field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`, with the value of a credential-bearing header replaced by `<redacted>`.
    public var description: String {
        "\(name): \(isSensitive ? "<redacted>" : value)"
    }

    /// The one list of request headers that carry credentials (lower case): dropped on a redirect
    /// to another origin, never stored in resume data, hidden in logs and cURL output.
    static let requestCredentialNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Every header whose value is a credential (lower case): the request ones plus the response's
    /// `Set-Cookie`. Logs, cURL output and descriptions hide these values.
    static let credentialNames: Set<String> = requestCredentialNames.union(["set-cookie"])

    /// Whether the value is a credential that must not appear in logs or descriptions.
    var isSensitive: Bool { Self.credentialNames.contains(name.asciiLowercased()) }

    /// Compares names case-insensitively and values exactly.
    public static func == (lhs: HTTPHeader, rhs: HTTPHeader) -> Bool {
        lhs.name.equalsIgnoringASCIICase(rhs.name) && lhs.value == rhs.value
    }

    /// Hashes the case-folded name and the value, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name.asciiLowercased())
        hasher.combine(value)
    }

    /// Checks that the header can be sent safely.
    ///
    /// The name must be a non-empty RFC 9110 token (letters, digits, `!#$%&'*+-.^_|~` and the
    /// backtick), so CR, LF, NUL, space, colon and non-ASCII characters are rejected. The value
    /// must not contain CR, LF, NUL or any other control character except a horizontal tab.
    /// Leading and trailing spaces and tabs in the value are accepted (receivers strip them); see
    /// ``HTTPHeaders/validated()`` to trim them.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` naming the header
    ///   (``NetworkError/headerName``), the rule it broke (``NetworkError/reason``) and the first
    ///   offending character (``NetworkError/invalidCharacter``); never its value.
    func validate() throws(NetworkError) {
        guard !name.isEmpty else {
            throw .invalidHeader(name: name, reason: .emptyHeaderName)
        }
        if let bad = name.unicodeScalars.first(where: { !$0.isTokenCharacter }) {
            throw .invalidHeader(name: name, reason: .invalidHeaderNameCharacter, character: bad)
        }
        if let bad = value.unicodeScalars.first(where: { !$0.isFieldValueCharacter }) {
            throw .invalidHeader(name: name, reason: .invalidHeaderValueCharacter, character: bad)
        }
    }
}

extension HTTPHeader {
    /// `Authorization: Bearer <token>`.
    /// - Parameter bearerToken: The token, sent as given.
    /// - Returns: The header.
    public static func authorization(bearerToken: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: "Bearer \(bearerToken)")
    }

    /// `Authorization: Basic <base64(username:password)>` (RFC 7617, UTF-8).
    /// - Parameters:
    ///   - username: The user name; must not contain a colon.
    ///   - password: The password.
    /// - Returns: The header.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credential = Data("\(username):\(password)".utf8).base64EncodedString()
        return HTTPHeader(name: "Authorization", value: "Basic \(credential)")
    }

    /// `Content-Type: <value>`, e.g. `.contentType("application/json")`.
    /// - Parameter value: The media type.
    /// - Returns: The header.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// `Accept: <value>`, e.g. `.accept("application/json")`.
    /// - Parameter value: The acceptable media types.
    /// - Returns: The header.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// `User-Agent: <value>`.
    /// - Parameter value: The product identifier, e.g. `"MyApp/1.0"`.
    /// - Returns: The header.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }
}

// MARK: - HTTPHeaders

/// An ordered set of HTTP headers with case-insensitive names.
///
/// There is one way to set a header: the subscript by name (`nil` removes it), or ``update(_:)``
/// for a ready-made ``HTTPHeader``. Each name appears at most once: setting a header whose name is
/// already present (in any letter case) replaces that entry **in place**: it keeps its position and takes the
/// **new** spelling of the name and the new value. So `["accept": "a"]` updated with
/// `.accept("b")` is `["Accept": "b"]`, still first. Equality compares the ordered headers,
/// names case-insensitively.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.update(.authorization(bearerToken: token))
/// headers["accept"]             // "application/json"
/// headers["X-Trace"] = "42"     // adds, or replaces in place
/// headers["X-Trace"] = nil      // removes
/// ```
public struct HTTPHeaders: Hashable, Sendable, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral, RandomAccessCollection, CustomStringConvertible
{
    private var headers: [HTTPHeader] = []

    /// Creates an empty set of headers.
    public init() {}

    /// Creates headers in the given order; a later duplicate name replaces the earlier value.
    /// - Parameter headers: The headers.
    public init(_ headers: [HTTPHeader]) {
        for header in headers { update(header) }
    }

    /// Creates headers from a dictionary, sorted by name (case-insensitively) for determinism.
    /// - Parameter dictionary: Names and values.
    public init(_ dictionary: [String: String]) {
        let sorted = dictionary.sorted {
            let (left, right) = ($0.key.asciiLowercased(), $1.key.asciiLowercased())
            return left == right ? $0.key < $1.key : left < right
        }
        for (name, value) in sorted { update(name: name, value: value) }
    }

    /// Creates headers from a dictionary literal, in the order written.
    /// - Parameter elements: Names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { update(name: name, value: value) }
    }

    /// Creates headers from an array literal of ``HTTPHeader``s, in the order written.
    /// - Parameter elements: The headers.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    /// The value for a name (case-insensitive); setting `nil` removes the header.
    /// - Parameter name: The header name.
    public subscript(_ name: String) -> String? {
        get { value(for: name) }
        set {
            if let newValue {
                update(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Replaces the header with the same name (any case) in place, or appends it.
    /// - Parameter header: The header; its spelling of the name replaces the old one.
    public mutating func update(_ header: HTTPHeader) {
        if let index = index(of: header.name) {
            headers[index] = header
        } else {
            headers.append(header)
        }
    }

    /// Replaces the header with the same name (any case) in place, or appends it.
    /// - Parameters:
    ///   - name: The header name; this spelling replaces the old one.
    ///   - value: The header value.
    mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Removes the header with this name (any case), if present.
    /// - Parameter name: The header name.
    mutating func remove(name: String) {
        if let index = index(of: name) { headers.remove(at: index) }
    }

    /// The value of the header with this name (any case).
    /// - Parameter name: The header name.
    /// - Returns: The value, or `nil` when there is no such header.
    func value(for name: String) -> String? {
        index(of: name).map { headers[$0].value }
    }

    /// The headers as a dictionary, keyed by each header's stored spelling.
    var dictionary: [String: String] {
        Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// These headers updated with `other`'s: on a name clash (any case) `other` wins, in place.
    /// - Parameter other: The headers that take precedence.
    /// - Returns: The merged headers.
    func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        for header in other { merged.update(header) }
        return merged
    }

    /// Checks every header with ``HTTPHeader/validate()``.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` for the first
    ///   invalid header.
    func validate() throws(NetworkError) {
        for header in headers { try header.validate() }
    }

    /// Checks every header and returns a copy whose values are trimmed of leading and trailing
    /// spaces and tabs.
    /// - Returns: The validated, trimmed headers.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` for the first
    ///   invalid header.
    func validated() throws(NetworkError) -> HTTPHeaders {
        try validate()
        var copy = self
        copy.headers = headers.map { HTTPHeader(name: $0.name, value: $0.value.trimmingOWS()) }
        return copy
    }

    /// One `Name: value` line per header, credentials redacted (see ``HTTPHeader``).
    public var description: String {
        headers.map(\.description).joined(separator: "\n")
    }

    private func index(of name: String) -> Int? {
        headers.firstIndex { $0.name.equalsIgnoringASCIICase(name) }
    }

    // MARK: Collection

    /// The position of the first header.
    public var startIndex: Int { headers.startIndex }
    /// The position after the last header.
    public var endIndex: Int { headers.endIndex }
    /// The header at a valid position.
    public subscript(position: Int) -> HTTPHeader { headers[position] }
    /// The position after `i`.
    public func index(after i: Int) -> Int { i + 1 }
    /// The position before `i`.
    public func index(before i: Int) -> Int { i - 1 }
}

// MARK: - Invalid headers

extension NetworkError {
    /// The error for the header `name`, rejected for `reason` at `character`.
    ///
    /// The failure reason names the header and the offending character, escaped (`\r`, `\n`,
    /// `\0`), and never includes the header's value.
    static func invalidHeader(name: String, reason: Reason, character: Unicode.Scalar? = nil)
        -> NetworkError
    {
        let escapedName = name.escapingControlCharacters()
        let text: String
        switch (reason, character) {
        case (.invalidHeaderNameCharacter, let character?):
            text =
                "Invalid HTTP header name \"\(escapedName)\": it contains \(character.readableName), "
                + "which is not allowed in a header name."
        case (.invalidHeaderValueCharacter, let character?):
            text =
                "Invalid value for HTTP header \"\(escapedName)\": it contains \(character.readableName); "
                + "header values must not contain CR, LF, NUL or other control characters."
        default:
            text = "Invalid HTTP header: the name is empty."
        }
        return NetworkError(
            .invalidHeader, failureReason: text,
            details: Details(reason: reason, headerName: name, invalidCharacter: character))
    }
}

// MARK: - URLRequest

extension URLRequest {
    /// The request's header fields as ``HTTPHeaders``.
    ///
    /// Setting keeps every value as given, also one with CR, LF or NUL, which
    /// `setValue(_:forHTTPHeaderField:)` and `addValue(_:forHTTPHeaderField:)` on Linux (corelibs
    /// Foundation) silently drop (or, when replacing, leave the old value in place), so Formwork's
    /// check of the final request sees it and fails the request with
    /// ``NetworkError/Kind/invalidHeader`` naming the header. (Adapters get an ``OutgoingRequest``,
    /// whose ``OutgoingRequest/headers`` are Formwork's own and keep every value too.)
    ///
    /// Reading sorts by name (Foundation keeps no order); setting replaces all fields, in order.
    ///
    /// Setting stores the fields with one change of the request, under the names
    /// `setValue(_:forHTTPHeaderField:)` would store (on Linux, capitalized: `User-Agent`). One
    /// `setValue` per field cost about 30,000 instructions a request on Linux (each capitalizes the
    /// name with all of Unicode's rules, looks for the name in letter case, and copies the request).
    public var headers: HTTPHeaders {
        get { allHTTPHeaderFields.map(HTTPHeaders.init) ?? HTTPHeaders() }
        set {
            var fields: [String: String] = [:]
            fields.reserveCapacity(newValue.count)
            for header in newValue {
                guard let name = Self.storedSpelling(of: header.name) else {
                    return setHeadersOneByOne(newValue)
                }
                fields[name] = header.value
            }
            // The dictionary setter keeps values as they are (also one with CR, LF or NUL).
            allHTTPHeaderFields = fields.isEmpty ? nil : fields
        }
    }

    /// The spelling under which `setValue(_:forHTTPHeaderField:)` stores the field `name`, for an
    /// ASCII name; nil for any other (left to Foundation). corelibs Foundation capitalizes the
    /// name (each letter after a character that is not a letter becomes a capital, every other
    /// letter small: `x-trace-id` → `X-Trace-Id`, `etag2x` → `Etag2X`); Apple's keeps it as given.
    static func storedSpelling(of name: String) -> String? {
        #if canImport(FoundationNetworking)
            var bytes = Array(name.utf8)
            var afterLetter = false
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x80 else { return nil }
                let lower = byte | 0x20
                let isLetter = lower >= 0x61 && lower <= 0x7A
                if isLetter { bytes[index] = afterLetter ? lower : lower & ~0x20 }
                afterLetter = isLetter
            }
            return String(decoding: bytes, as: UTF8.self)
        #else
            return name
        #endif
    }

    /// Sets the fields one by one through Foundation (a name that is not ASCII).
    private mutating func setHeadersOneByOne(_ headers: HTTPHeaders) {
        allHTTPHeaderFields = nil
        var dropped: [HTTPHeader] = []
        for header in headers {
            if header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                dropped.append(header)  // what corelibs' setValue would drop
            } else {
                setValue(header.value, forHTTPHeaderField: header.name)
            }
        }
        guard !dropped.isEmpty else { return }
        var fields = allHTTPHeaderFields ?? [:]
        for header in dropped { fields[header.name] = header.value }
        allHTTPHeaderFields = fields
    }
}

extension URLRequest {
    /// Checks every header field of the request with ``HTTPHeader/validate()``, in name order,
    /// whoever set it (a form, the session, an adapter, an authenticator).
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` for the first
    ///   invalid header.
    func validateHeaders() throws(NetworkError) {
        guard let fields = allHTTPHeaderFields, !fields.isEmpty else { return }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            try HTTPHeader(name: name, value: value).validate()
        }
    }

    /// The request without any header that fails ``HTTPHeader/validate()``: what an error may
    /// keep, so the rejected value is not passed on.
    func removingInvalidHeaders() -> URLRequest {
        guard let fields = allHTTPHeaderFields else { return self }
        var request = self
        request.allHTTPHeaderFields = fields.filter { name, value in
            (try? HTTPHeader(name: name, value: value).validate()) != nil
        }
        return request
    }
}

// MARK: - Helpers (fileprivate so they cannot clash with other files' helpers, except the
// field-name comparisons and the trimming, which response heads share)

extension String {
    /// The string with ASCII letters lowercased; other characters unchanged.
    func asciiLowercased() -> String {
        guard utf8.contains(where: { (65...90).contains($0) }) else { return self }
        return String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether the strings are equal when ASCII letter case is ignored (header-name rules).
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Over the bytes themselves (a native string's `withUTF8` copies nothing): walking two
        // `UTF8View`s costs about ten times as much per byte.
        var (left, right) = (self, other)
        return left.withUTF8 { a in
            right.withUTF8 { b in
                for index in 0..<a.count where a[index] != b[index] {
                    let folded = a[index] | 0x20
                    guard folded == b[index] | 0x20, (97...122).contains(folded) else { return false }
                }
                return true
            }
        }
    }

    /// The string without leading and trailing spaces and horizontal tabs (RFC 9110 OWS).
    func trimmingOWS() -> String {
        let isOWS: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        // Most values have nothing to trim.
        if let first = unicodeScalars.first, let last = unicodeScalars.last, !isOWS(first), !isOWS(last) {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isOWS($0) }),
            let last = scalars.lastIndex(where: { !isOWS($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// The string with control characters written as escapes (`\r`, `\n`, `\t`, `\0`, `\u{7F}`).
    fileprivate func escapingControlCharacters() -> String {
        var result = ""
        for scalar in unicodeScalars {
            if let escape = scalar.escape {
                result += escape
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Whether the scalar may appear in an RFC 9110 token (a header name).
    fileprivate var isTokenCharacter: Bool {
        switch value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "!#$%&'*+-.^_`|~".unicodeScalars.contains(self)
        }
    }

    /// Whether the scalar may appear in a header value: anything but controls other than tab.
    fileprivate var isFieldValueCharacter: Bool {
        self == "\t" || !(value < 0x20 || value == 0x7F)
    }

    /// A source-style escape for a control character, or `nil` for any other scalar.
    fileprivate var escape: String? {
        switch self {
        case "\r": "\\r"
        case "\n": "\\n"
        case "\t": "\\t"
        case "\0": "\\0"
        default:
            value < 0x20 || (0x7F...0x9F).contains(value)
                ? "\\u{\(String(value, radix: 16, uppercase: true))}" : nil
        }
    }

    /// A human-readable name for error messages, e.g. `a carriage return (\r)`.
    fileprivate var readableName: String {
        switch self {
        case "\r": "a carriage return (\\r)"
        case "\n": "a line feed (\\n)"
        case "\0": "a NUL character (\\0)"
        case "\t": "a tab (\\t)"
        case " ": "a space"
        default:
            if let escape {
                "a control character (\(escape))"
            } else {
                "the character \"\(self)\" (U+\(String(value, radix: 16, uppercase: true)))"
            }
        }
    }
}
