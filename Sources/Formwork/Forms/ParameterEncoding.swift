// MARK: - ParameterEncoding

/// How a form's ``Parameters`` (or an `Encodable` body) are put into a request.
///
/// ```swift
/// var encoding: ParameterEncoding { .url }          // query for GET/HEAD/DELETE, form body otherwise
/// var encoding: ParameterEncoding { .query }        // always the query string
/// var encoding: ParameterEncoding { .json }         // the parameters as a JSON object body
/// var encoding: ParameterEncoding { .json(order) }  // an Encodable body; parameters go to the query
/// ```
///
/// Query parameters are appended to any query the URL already has (after a `&`). A body
/// encoding sets `Content-Type` only when the request has none yet. Empty parameters leave
/// the request unchanged (no body, no `?`). See ``URLQueryEncoder`` and ``Parameters`` for how
/// values are written.
public struct ParameterEncoding: Sendable {
    /// Where ``url(destination:arrayEncoding:boolEncoding:)`` puts the encoded parameters.
    public enum Destination: Sendable {
        /// The query string for `GET`, `HEAD` and `DELETE` (and a request without a method);
        /// an `application/x-www-form-urlencoded` body for every other method.
        case methodDependent
        /// Always the query string.
        case queryString
        /// Always an `application/x-www-form-urlencoded; charset=utf-8` body.
        case httpBody
    }

    private enum Kind: Sendable {
        case url(Destination, URLQueryEncoder)
        case jsonParameters
        case jsonBody(Result<Data, NetworkError>)
        /// A form's own body (``RequestFormable/body``); parameters go to the query.
        case raw(RequestBody)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The query string for `GET`, `HEAD` and `DELETE`; a form body otherwise (the default).
    public static var url: ParameterEncoding { .url() }

    /// Always the query string, whatever the method.
    public static var query: ParameterEncoding { .url(destination: .queryString) }

    /// Always an `application/x-www-form-urlencoded; charset=utf-8` body, whatever the method.
    public static var httpBody: ParameterEncoding { .url(destination: .httpBody) }

    /// URL (form) encoding with explicit options.
    /// - Parameters:
    ///   - destination: Query string, body, or chosen by method (the default).
    ///   - arrayEncoding: How array elements are keyed; `key[]=v` by default.
    ///   - boolEncoding: How `Bool` values are written; `true`/`false` by default.
    /// - Returns: The encoding.
    public static func url(
        destination: Destination = .methodDependent,
        arrayEncoding: URLQueryEncoder.ArrayEncoding = .brackets,
        boolEncoding: URLQueryEncoder.BoolEncoding = .literal
    ) -> ParameterEncoding {
        ParameterEncoding(
            .url(destination, URLQueryEncoder(arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)))
    }

    /// The parameters as a JSON object body, keys sorted, slashes not escaped.
    ///
    /// `Content-Type: application/json` is set unless the request has a content type already.
    /// Values follow ``Parameters``: a `nil` optional omits its key (it is `null` inside an
    /// array), `NSNull` is `null`, `Date` is an ISO 8601 string. Unsupported values and
    /// NaN or infinite numbers throw instead of reaching `JSONSerialization`.
    public static var json: ParameterEncoding { ParameterEncoding(.jsonParameters) }

    /// An `Encodable` value as the JSON body; any form parameters are appended to the query.
    ///
    /// The body is encoded right away, so the encoder is not kept (and need not be
    /// `Sendable`); a failure is stored and thrown by ``encode(_:with:)``.
    /// `Content-Type: application/json` is set unless the request has a content type already.
    /// - Parameters:
    ///   - body: The value to send.
    ///   - encoder: The encoder to use; a default `JSONEncoder` unless given.
    /// - Returns: The encoding.
    public static func json(
        _ body: some Encodable & Sendable, encoder: JSONEncoder = JSONEncoder()
    ) -> ParameterEncoding {
        do {
            return ParameterEncoding(.jsonBody(.success(try encoder.encode(body))))
        } catch {
            return ParameterEncoding(
                .jsonBody(.failure(.jsonEncodingFailed(Self.describe(error), underlyingError: error))))
        }
    }

    /// Returns `request` with `parameters` (and any `Encodable` body) encoded into it.
    /// - Parameters:
    ///   - request: The request; it must have a URL.
    ///   - parameters: The parameters to encode.
    /// - Returns: The request with its URL, body and `Content-Type` set as needed.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/parameterEncodingFailed`` for a
    ///   missing URL, an unsupported or non-finite value (its ``NetworkError/parameterKeyPath``
    ///   names it), or a body that failed to encode; ``NetworkError/reason`` says which, and
    ///   ``NetworkError/request`` is the request given.
    public func encode(
        _ request: URLRequest, with parameters: Parameters
    ) throws(NetworkError) -> URLRequest {
        do {
            return try encoding(request, with: parameters)
        } catch {
            throw error.with(request: request)
        }
    }

    private func encoding(_ request: URLRequest, with parameters: Parameters) throws(NetworkError)
        -> URLRequest
    {
        guard request.url != nil else { throw .missingURL }
        var request = request
        switch kind {
        case .url(let destination, let encoder):
            guard !parameters.isEmpty else { return request }
            let query = try encoder.encode(parameters)
            guard !query.isEmpty else { return request }
            if Self.usesQueryString(destination, method: request.httpMethod) {
                try Self.appendQuery(query, to: &request)
            } else {
                let contentType = "application/x-www-form-urlencoded; charset=utf-8"
                Self.setBody(Data(query.utf8), contentType: contentType, on: &request)
            }
        case .jsonParameters:
            guard !parameters.isEmpty else { return request }
            Self.setBody(try Self.jsonData(parameters), contentType: "application/json", on: &request)
        case .jsonBody(let result):
            Self.setBody(try result.get(), contentType: "application/json", on: &request)
            try Self.appendQuery(parameters, to: &request)
        case .raw(let body):
            Self.setBody(body.data, contentType: body.contentType, on: &request)
            try Self.appendQuery(parameters, to: &request)
        }
        return request
    }

    /// A form's own body, sent as it is; the parameters go to the query (see
    /// ``RequestFormable/body``).
    static func raw(_ body: RequestBody) -> ParameterEncoding {
        ParameterEncoding(.raw(body))
    }

    // MARK: Helpers

    private static func usesQueryString(_ destination: Destination, method: String?) -> Bool {
        switch destination {
        case .queryString: true
        case .httpBody: false
        case .methodDependent:
            method.map {
                $0.equalsIgnoringASCIICase("GET") || $0.equalsIgnoringASCIICase("HEAD")
                    || $0.equalsIgnoringASCIICase("DELETE")
            } ?? true
        }
    }

    /// Appends `parameters`, URL-encoded with the default options, to the request's query.
    private static func appendQuery(_ parameters: Parameters, to request: inout URLRequest)
        throws(NetworkError)
    {
        guard !parameters.isEmpty else { return }
        let query = try URLQueryEncoder().encode(parameters)
        if !query.isEmpty { try appendQuery(query, to: &request) }
    }

    private static func appendQuery(_ query: String, to request: inout URLRequest)
        throws(NetworkError)
    {
        guard let url = request.url else { throw .missingURL }
        guard let encodedURL = Self.url(url, appendingQuery: query) else {
            throw .invalidQueryURL(url.absoluteString)
        }
        request.url = encodedURL
    }

    /// `url` with `query` (already percent-encoded) added to its query, or nil if that is not a URL.
    static func url(_ url: URL, appendingQuery query: String) -> URL? {
        // Going through URLComponents and back costs twice as much as parsing the text once. Like
        // URLComponents without resolving, this works on the URL's own (relative) text.
        URL(string: text(url.relativeString, appendingQuery: query))
    }

    /// The text of a URL (percent-encoded, as a parsed URL's is) with `query` added to its query.
    static func text(_ text: String, appendingQuery query: String) -> String {
        // In such a text, the query runs from the first "?" to the fragment's "#" (neither
        // appears unencoded anywhere else). (Searched as UTF-8: characters would cost grapheme
        // breaking.)
        let utf8 = text.utf8
        let fragmentStart = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        let questionMark = utf8[..<fragmentStart].firstIndex(of: UInt8(ascii: "?"))
        var appended = String(text[..<fragmentStart])
        appended += questionMark.map { utf8.index(after: $0) == fragmentStart ? "" : "&" } ?? "?"
        appended += query
        appended += text[fragmentStart...]
        return appended
    }

    /// The query string `encode(_:with:)` would add to the URL of a request with this `method`,
    /// when that is all it would do; nil when it would leave the request as it is or set a body.
    /// - Throws: ``NetworkError`` for a value that cannot be encoded.
    func queryString(for parameters: Parameters, method: String?) throws(NetworkError) -> String? {
        guard case .url(let destination, let encoder) = kind, !parameters.isEmpty,
            Self.usesQueryString(destination, method: method)
        else { return nil }
        let query = try encoder.encode(parameters)
        return query.isEmpty ? nil : query
    }

    private static func setBody(_ body: Data, contentType: String, on request: inout URLRequest) {
        request.httpBody = body
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
    }

    /// Serialises parameters after checking every value, so `JSONSerialization` never sees
    /// an object it would reject with an (uncatchable) Objective-C exception.
    static func jsonData(_ parameters: Parameters) throws(NetworkError) -> Data {
        let object = try jsonObject(parameters, path: "") ?? [String: Any]()
        guard JSONSerialization.isValidJSONObject(object) else {
            throw .jsonEncodingFailed("the parameters are not a valid JSON object")
        }
        do {
            return try JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw .jsonEncodingFailed(describe(error), underlyingError: error)
        }
    }

    /// A JSON-compatible Foundation value for `value`, or `nil` when it is a `nil` optional.
    private static func jsonObject(_ value: Any, path: String) throws(NetworkError) -> Any? {
        switch ParameterValue(value) {
        case .absent:
            return nil
        case .null:
            return NSNull()
        case .string(let string):
            return string
        case .bool(let bool):
            return bool
        case .integer(let integer):
            if let exact = Int64(exactly: integer) { return NSNumber(value: exact) }
            if let exact = UInt64(exactly: integer) { return NSNumber(value: exact) }
            return NSDecimalNumber(string: "\(integer)", locale: nil)
        case .double(let double):
            guard double.isFinite else {
                throw .invalidParameter(keyPath: path, why: "\(double) is not valid in JSON")
            }
            return double
        case .decimal(let decimal):
            guard !decimal.isNaN else {
                throw .invalidParameter(keyPath: path, why: "NaN is not valid in JSON")
            }
            return NSDecimalNumber(decimal: decimal)
        case .array(let array):
            var result: [Any] = []
            for (index, element) in array.enumerated() {
                result.append(
                    try jsonObject(element, path: ParameterValue.keyPath(path, appending: "\(index)"))
                        ?? NSNull())
            }
            return result
        case .dictionary(let dictionary):
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                result[key] = try jsonObject(element, path: ParameterValue.keyPath(path, appending: key))
            }
            return result
        case .unsupported(let type):
            throw .unsupportedParameter(keyPath: path, type: type)
        }
    }

    /// A readable account of an encoding error: `EncodingError`s give their message and path.
    private static func describe(_ error: any Error) -> String {
        guard case .invalidValue(_, let context) = error as? EncodingError else {
            return String(describing: error)
        }
        let path = context.codingPath.reduce("") { path, key in
            ParameterValue.keyPath(path, appending: key.intValue.map(String.init) ?? key.stringValue)
        }
        return path.isEmpty ? context.debugDescription : "\(context.debugDescription) (at \(path))"
    }
}

// MARK: - Parameter encoding failures

extension NetworkError {
    /// A parameter whose type is not supported (see ``Parameters``).
    static func unsupportedParameter(keyPath: String, type: String) -> NetworkError {
        NetworkError(
            .parameterEncodingFailed,
            failureReason:
                "Cannot encode parameter \"\(keyPath)\": values of type \(type) are not supported.",
            details: Details(reason: .unsupportedValue, parameterKeyPath: keyPath, valueType: type))
    }

    /// A parameter of a supported type whose value cannot be sent (NaN, infinity).
    static func invalidParameter(keyPath: String, why: String) -> NetworkError {
        NetworkError(
            .parameterEncodingFailed, failureReason: "Cannot encode parameter \"\(keyPath)\": \(why).",
            details: Details(reason: .invalidValue, parameterKeyPath: keyPath))
    }

    /// The `Encodable` body or the JSON serialisation failed, for the reason `message`.
    static func jsonEncodingFailed(_ message: String, underlyingError: (any Error)? = nil) -> NetworkError {
        NetworkError(
            .parameterEncodingFailed, failureReason: "Could not encode the request body: \(message)",
            details: Details(reason: .jsonEncodingFailed), underlyingError: underlyingError)
    }

    /// The request to encode into has no URL.
    static let missingURL = NetworkError(
        .parameterEncodingFailed, failureReason: "Cannot encode parameters: the request has no URL.",
        details: Details(reason: .missingURL))

    /// The request's URL could not take a query string.
    static func invalidQueryURL(_ url: String) -> NetworkError {
        NetworkError(
            .parameterEncodingFailed, failureReason: "Cannot add a query string to the URL \"\(url)\".",
            details: Details(reason: .invalidQueryURL))
    }
}
