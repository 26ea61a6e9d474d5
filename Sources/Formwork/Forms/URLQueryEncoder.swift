/// Encodes ``Parameters`` as a URL query string (`a=1&b%5Bc%5D=2`), deterministically.
///
/// - Keys are sorted (by `String` ordering) at every nesting level.
/// - A dictionary nests as `key[sub]=v`; an array as `key[]=v` (see ``ArrayEncoding``). An
///   empty array or dictionary, and a `nil` optional, add nothing; `NSNull` gives `key=`.
///   A `nil` inside an array is skipped (with ``ArrayEncoding/indexInBrackets`` the other
///   elements keep their original indices).
/// - `Bool` is `true`/`false` or `1`/`0` (see ``BoolEncoding``); integers are decimal;
///   `Double` and `Float` use Swift's shortest round-trip form (`1.5`, `1.0`, `1e-05`);
///   `Decimal` its plain form (`3.14`); `Date` is ISO 8601 in UTC with milliseconds
///   (`2024-05-01T08:30:00.000Z`); `URL` its `absoluteString`; `UUID` its `uuidString`.
/// - Percent-encoding follows RFC 3986: unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay,
///   and so do `?` and `/`, which are legal and readable in a query; everything else is
///   encoded as UTF-8 `%XX`: space as `%20` (never `+`), `%`, the reserved characters
///   `:#[]@!$&'()*+,;=` and all non-ASCII text. Keys are encoded the same way, brackets
///   included: `a[b]=v` is sent as `a%5Bb%5D=v`.
///
/// A value of any other type, or a NaN or infinite number, throws a ``NetworkError`` of kind
/// ``NetworkError/Kind/parameterEncodingFailed`` naming the key path
/// (``NetworkError/parameterKeyPath``, e.g. `user[tags][1]`) rather than being sent as some
/// description.
public struct URLQueryEncoder: Sendable {
    /// How array elements are keyed.
    public enum ArrayEncoding: Sendable {
        /// `key[]=1&key[]=2` (the default; PHP, Rails).
        case brackets
        /// `key=1&key=2`.
        case noBrackets
        /// `key[0]=1&key[1]=2`.
        case indexInBrackets
    }

    /// How `Bool` values are written.
    public enum BoolEncoding: Sendable {
        /// `true` / `false` (the default).
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// How array elements are keyed.
    var arrayEncoding: ArrayEncoding
    /// How `Bool` values are written.
    var boolEncoding: BoolEncoding

    /// Creates an encoder.
    /// - Parameters:
    ///   - arrayEncoding: How array elements are keyed; `.brackets` (`key[]=v`) by default.
    ///   - boolEncoding: How `Bool` values are written; `.literal` (`true`/`false`) by default.
    init(arrayEncoding: ArrayEncoding = .brackets, boolEncoding: BoolEncoding = .literal) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// Encodes parameters as a percent-encoded query string, without a leading `?`.
    /// - Parameter parameters: The parameters; an empty dictionary gives `""`.
    /// - Returns: The query, e.g. `"page=2&q=swift%20concurrency"`.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/parameterEncodingFailed`` for an
    ///   unsupported value (``NetworkError/Reason/unsupportedValue``) or a non-finite number
    ///   (``NetworkError/Reason/invalidValue``), naming its ``NetworkError/parameterKeyPath``.
    func encode(_ parameters: Parameters) throws(NetworkError) -> String {
        // Written into one string as it goes; one parameter (the common case) needs no sort.
        var query = ""
        if parameters.count == 1, let (key, value) = parameters.first {
            try append(value, key: key, path: key, to: &query)
            return query
        }
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            try append(value, key: key, path: key, to: &query)
        }
        return query
    }

    /// Appends the `key=value` pairs of one (possibly nested) value, each after a `&` unless it is
    /// the first of `query`.
    /// - Parameters:
    ///   - key: The unencoded query key, e.g. `user[tags][]`.
    ///   - path: The key path for error messages, with indices, e.g. `user[tags][1]`.
    private func append(
        _ value: Any, key: String, path: String, to query: inout String
    ) throws(NetworkError) {
        func pair(_ text: String) {
            if !query.isEmpty { query += "&" }
            query += Self.percentEncoded(key)
            query += "="
            query += Self.percentEncoded(text)
        }
        switch ParameterValue(value) {
        case .absent:
            return
        case .null:
            pair("")
        case .string(let string):
            pair(string)
        case .bool(let bool):
            switch boolEncoding {
            case .literal: pair(bool ? "true" : "false")
            case .numeric: pair(bool ? "1" : "0")
            }
        case .integer(let integer):
            pair("\(integer)")
        case .double(let double):
            guard double.isFinite else {
                throw .invalidParameter(keyPath: path, why: "\(double) is not a finite number")
            }
            pair(double.description)
        case .decimal(let decimal):
            guard !decimal.isNaN else {
                throw .invalidParameter(keyPath: path, why: "NaN is not a finite number")
            }
            pair(decimal.description)
        case .array(let array):
            for (index, element) in array.enumerated() {
                let elementKey =
                    switch arrayEncoding {
                    case .brackets: key + "[]"
                    case .noBrackets: key
                    case .indexInBrackets: key + "[\(index)]"
                    }
                try append(
                    element, key: elementKey, path: ParameterValue.keyPath(path, appending: "\(index)"),
                    to: &query)
            }
        case .dictionary(let dictionary):
            for (subkey, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                try append(
                    element, key: "\(key)[\(subkey)]", path: ParameterValue.keyPath(path, appending: subkey),
                    to: &query)
            }
        case .unsupported(let type):
            throw .unsupportedParameter(keyPath: path, type: type)
        }
    }

    /// Percent-encodes everything but unreserved characters, `?` and `/` (RFC 3986 §3.4).
    static func percentEncoded(_ string: String) -> String {
        // Most keys and values need no encoding: returned as they are, without a copy.
        // (Over the contiguous bytes of a native string: the view's own iteration costs ~20
        // instructions a byte.)
        let keptAsIs =
            string.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isKeptAsIs) }
            ?? string.utf8.allSatisfy(isKeptAsIs)
        if keptAsIs { return string }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isKeptAsIs(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Unreserved characters, `?` and `/`: what a query keeps unencoded.
    private static func isKeptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "?"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
