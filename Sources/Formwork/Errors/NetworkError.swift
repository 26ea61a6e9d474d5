import Foundation

/// The one error type Formwork reports.
///
/// A `NetworkError` says what went wrong (``kind``), and for kinds that happen more than one way
/// which way (``reason``) and what it was about (``headerName``, ``parameterKeyPath``,
/// ``fileURL``, ``businessCode``...). It keeps what caused it (``underlyingError``) and the
/// request and response it happened with, so an app can log it, show ``userMessage`` to a
/// person, or branch on ``isCancelled``, ``isTimeout`` and friends. Everything Formwork throws or
/// delivers is a `NetworkError`, so one `catch` covers them all:
///
/// ```swift
/// do {
///     let profile = try await session.request(form).decode(Profile.self)
/// } catch {
///     switch error.kind {
///     case .business: print(error.businessCode ?? "", error.businessMessage ?? "")
///     case .invalidHeader: print("bad header:", error.headerName ?? "")
///     default: print(error.userMessage)
///     }
/// }
/// ```
public struct NetworkError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What failed. New kinds can be added without breaking code that compares against these.
    public let kind: Kind
    /// A technical, English explanation for logs and debugging (not for end users).
    public let failureReason: String
    /// The error that caused this one: a `URLError`, a `DecodingError`, an encoding error, and so on.
    public let underlyingError: (any Error)?
    /// The request that was sent (or was being built), when there was one.
    public let request: URLRequest?
    /// The HTTP response, when one arrived.
    public let response: HTTPURLResponse?
    /// The response body, when one arrived.
    public let data: Data?
    /// The error's ``Details``, when it has any (see ``reason``, ``headerName`` and friends).
    private let storedDetails: DetailsStorage?

    /// Creates an error. Formwork creates these itself; apps mostly create them in tests or adapters.
    /// - Parameters:
    ///   - kind: What failed.
    ///   - failureReason: A technical explanation.
    ///   - details: The reason and what the failure is about (a header, a parameter, a file, the
    ///     server's code); none by default.
    ///   - underlyingError: The error that caused this one.
    ///   - request: The request involved.
    ///   - response: The response involved.
    ///   - data: The response body involved.
    public init(
        _ kind: Kind,
        failureReason: String,
        details: Details = Details(),
        underlyingError: (any Error)? = nil,
        request: URLRequest? = nil,
        response: HTTPURLResponse? = nil,
        data: Data? = nil
    ) {
        self.kind = kind
        self.failureReason = failureReason
        self.storedDetails = details.isEmpty ? nil : DetailsStorage(details)
        self.underlyingError = underlyingError
        self.request = request
        self.response = response
        self.data = data
    }

    /// The error's details (empty when it has none).
    var details: Details { storedDetails?.details ?? Details() }

    /// The same error, about `request` (a failure found before the request existed, such as an
    /// invalid header or parameter, gets the request it stopped).
    func with(request: URLRequest?) -> NetworkError {
        NetworkError(
            kind, failureReason: failureReason, details: details, underlyingError: underlyingError,
            request: request, response: response, data: data)
    }

    /// The HTTP status code of the response, if one arrived.
    public var statusCode: Int? { response?.statusCode }

    /// The `URLError` code when the failure came from the transport.
    public var urlErrorCode: URLError.Code? { (underlyingError as? URLError)?.code }

    /// `true` when the request was cancelled (by `cancel()` or by cancelling the Swift `Task`).
    public var isCancelled: Bool { kind == .cancelled }

    /// `true` when the request timed out.
    public var isTimeout: Bool { kind == .transport && urlErrorCode == .timedOut }

    /// `true` for failures of the network itself (no connection, timeout, reset, TLS, cut body):
    /// the kind of failure a "tap to reload" screen is for. Not for HTTP statuses or bad bodies.
    /// A chain refused by the session's ``TrustPolicy`` (``Kind/serverTrust``) counts too: a
    /// captive portal or a hostile network may be in the way, and another try may pass.
    public var isNetworkFailure: Bool { kind == .transport || kind == .serverTrust }

    /// `true` when the response arrived but its body could not be turned into the requested value.
    public var isResponseSerializationError: Bool { kind.isResponseSerialization }

    /// A short description: the kind, the reason when there is one, and the technical reason,
    /// e.g. `NetworkError.fileOperationFailed(fileNotFound): Part "avatar": no file at /tmp/a.jpg.`
    public var description: String {
        "NetworkError.\(kind)\(reason.map { "(\($0))" } ?? ""): \(failureReason)"
    }

    /// The description plus the request line and status, for logs.
    public var debugDescription: String {
        var text = description
        if let request, let url = request.url {
            text += " [\(request.httpMethod ?? "GET") \(url.absoluteString)]"
        }
        if let statusCode {
            text += " [status \(statusCode)]"
        }
        if let underlyingError {
            text += " [underlying: \(underlyingError)]"
        }
        return text
    }
}

extension NetworkError {
    /// What failed, as an extensible set of values (compare with `==`, or `switch` with a `default`).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The name of the kind, e.g. `"invalidURL"`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The form's `url` is not a valid absolute http(s) URL.
        public static let invalidURL = Kind("invalidURL")
        /// A header name or value is invalid (for example it contains CR or LF). See
        /// ``NetworkError/headerName``, ``NetworkError/reason`` and ``NetworkError/invalidCharacter``.
        public static let invalidHeader = Kind("invalidHeader")
        /// The parameters or body could not be encoded. See ``NetworkError/reason`` and
        /// ``NetworkError/parameterKeyPath``.
        public static let parameterEncodingFailed = Kind("parameterEncodingFailed")
        /// A `multipart/form-data` body could not be built: a bad MIME type or boundary, or a part
        /// that holds the boundary (see ``NetworkError/reason``). A missing or unreadable file
        /// part is a ``fileOperationFailed``.
        public static let multipartEncodingFailed = Kind("multipartEncodingFailed")
        /// The request could not be built for another reason (an adapter failed, a body file is missing...).
        public static let requestBuildFailed = Kind("requestBuildFailed")
        /// The transport failed: no connection, timeout, reset, TLS, body cut short. See ``urlErrorCode``.
        public static let transport = Kind("transport")
        /// The request was cancelled.
        public static let cancelled = Kind("cancelled")
        /// Validation rejected the response's status code.
        public static let unacceptableStatusCode = Kind("unacceptableStatusCode")
        /// A custom validator rejected the response.
        public static let validationFailed = Kind("validationFailed")
        /// The body was empty but the requested type needs a value.
        public static let emptyResponse = Kind("emptyResponse")
        /// The body is not valid JSON.
        public static let invalidJSON = Kind("invalidJSON")
        /// The body is JSON but has nothing at the requested key path.
        public static let keyPathNotFound = Kind("keyPathNotFound")
        /// The JSON could not be decoded into the requested type.
        public static let decodingFailed = Kind("decodingFailed")
        /// The body could not be read as text in its declared encoding.
        public static let stringDecodingFailed = Kind("stringDecodingFailed")
        /// A file could not be read, written or moved (an upload's source, a multipart file part,
        /// a download's destination). See ``NetworkError/reason`` and ``NetworkError/fileURL``.
        public static let fileOperationFailed = Kind("fileOperationFailed")
        /// The server answered with a business error: an envelope whose code is not a success
        /// code. See ``NetworkError/businessCode`` and ``NetworkError/businessMessage``.
        public static let business = Kind("business")
        /// A stream's reader fell behind by more than the stream's buffer limit (see `StreamRequest`).
        public static let streamBufferOverflow = Kind("streamBufferOverflow")
        /// The request was started on a session after ``Session/invalidate()`` or
        /// ``Session/invalidateAndCancel()``: it was not sent.
        public static let sessionInvalidated = Kind("sessionInvalidated")
        /// The outbox could not take or keep a request: its directory is in use by another outbox
        /// or cannot be used, it is full or closed, or a request expired before a final answer. See
        /// ``NetworkError/reason``.
        public static let outbox = Kind("outbox")
        /// The server's certificate chain was refused by the session's ``TrustPolicy`` (none of
        /// the pins of its ``PinSet`` matched; see ``NetworkError/host``,
        /// ``NetworkError/expectedPins`` and ``NetworkError/presentedPins``), or the transport
        /// cannot enforce the policy for the request's host and did not send it
        /// (``NetworkError/Reason/trustNotEnforceable``). Never retried by ``RetryPolicy``.
        public static let serverTrust = Kind("serverTrust")
        /// A ``TrustPolicy`` value could not be made: a pin set without a backup pin, a pin that
        /// is not a base64 SHA-256 hash, a host pattern or certificate that cannot be read. See
        /// ``NetworkError/reason``.
        public static let invalidTrustPolicy = Kind("invalidTrustPolicy")

        /// A WebSocket could not be opened or ended with an error: the server refused the
        /// handshake, broke the protocol or sent a message over the limit, the platform cannot
        /// open WebSockets, or a message was sent on a socket that is closed. See
        /// ``NetworkError/reason``.
        public static let webSocket = Kind("webSocket")

        /// `true` for the kinds that mean "the response arrived but could not be read".
        var isResponseSerialization: Bool {
            [.emptyResponse, .invalidJSON, .keyPathNotFound, .decodingFailed, .stringDecodingFailed]
                .contains(self)
        }

        /// `true` for the kinds that mean "the request was never sent because it was malformed".
        var isInvalidRequest: Bool {
            [
                .invalidURL, .invalidHeader, .parameterEncodingFailed, .multipartEncodingFailed,
                .requestBuildFailed,
            ]
            .contains(self)
        }

        /// The kind's name.
        public var description: String { name }
    }
}

extension NetworkError {
    /// Wraps a transport error from URLSession, keeping the request and any partial response.
    ///
    /// A `URLError` is first given the code it has on Apple platforms (see
    /// ``platformIndependent(_:responseArrived:)``), so its kind, ``urlErrorCode``, retries and
    /// ``userMessage`` are the same everywhere.
    static func transport(
        _ error: any Error, request: URLRequest?, response: HTTPURLResponse?, data: Data?
    ) -> NetworkError {
        let error: any Error = TLSFailure.appleEquivalent(of: error) ?? error  // Linux reports TLS as -1
        let reported = error as? URLError
        if reported?.code == .cancelled {
            return .cancelled(request: request, response: response, data: data)
        }
        let urlError = reported.map { platformIndependent($0, responseArrived: response != nil) }
        var code = ""
        if let urlError, let reported {
            code = " (\(urlError.code.rawValue)"
            if urlError.code != reported.code { code += ", reported as \(reported.code.rawValue)" }
            code += ")"
        }
        return NetworkError(
            .transport,
            failureReason: "The request failed in transit\(code): \(error.localizedDescription)",
            underlyingError: urlError ?? error,
            request: request,
            response: response,
            data: data
        )
    }

    /// The same failure, with the code Apple platforms give it.
    ///
    /// corelibs URLSession (Linux) reports a connection lost after the response began (a body
    /// cut short) as `-1` (`.unknown`, "transfer closed with N bytes remaining to read") and a
    /// connection closed before any response as `-1011` (`.badServerResponse`); Apple platforms
    /// report both as `-1005` (`.networkConnectionLost`), and the second sometimes as `-1011`.
    /// All of them become `.networkConnectionLost`; the error as reported stays reachable as the
    /// new error's `NSUnderlyingErrorKey`. A `-1011` that came with a response keeps its code.
    ///
    /// corelibs also reports a response head it cannot parse as `-1` (libcurl's "Failed writing
    /// header": e.g. a status line without a reason phrase, `HTTP/1.1 200`, which HTTP allows, or
    /// a header with a non-ASCII byte). That is the server's answer, not a lost connection: it
    /// becomes `.cannotParseResponse` (`-1017`, Apple's code for a response it cannot parse),
    /// which the default ``RetryPolicy`` does not retry and ``userMessage`` calls unreadable.
    static func platformIndependent(_ error: URLError, responseArrived: Bool) -> URLError {
        let code: URLError.Code
        if error.code == .unknown, isUnparsableHead(error) {
            code = .cannotParseResponse
        } else if error.code == .unknown || (error.code == .badServerResponse && !responseArrived) {
            code = .networkConnectionLost
        } else {
            return error
        }
        var userInfo = error.userInfo
        userInfo[NSUnderlyingErrorKey] = error
        return URLError(code, userInfo: userInfo)
    }

    /// Whether corelibs' `-1` says that libcurl refused the response head (`CURLE_WRITE_ERROR`
    /// from the header callback, which corelibs fails when it cannot parse a header line).
    private static func isUnparsableHead(_ error: URLError) -> Bool {
        let text = (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? error.localizedDescription
        return text.contains("Failed writing header")
    }

    /// The error every cancelled request finishes with.
    static func cancelled(request: URLRequest?, response: HTTPURLResponse? = nil, data: Data? = nil)
        -> NetworkError
    {
        NetworkError(
            .cancelled,
            failureReason: "The request was cancelled.",
            underlyingError: URLError(.cancelled),
            request: request,
            response: response,
            data: data
        )
    }
}

extension NetworkError {
    /// `error` as a ``NetworkError``: itself when it is one, else a ``Kind/requestBuildFailed``
    /// wrapping it (for closures whose function type cannot carry typed throws, see
    /// `RequestCore.Builder`).
    static func building(_ error: any Error) -> NetworkError {
        if let error = error as? NetworkError { return error }
        return NetworkError(
            .requestBuildFailed, failureReason: "The request could not be built: \(error)",
            underlyingError: error)
    }
}
