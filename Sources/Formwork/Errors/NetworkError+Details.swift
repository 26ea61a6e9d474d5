import Foundation

extension NetworkError {
    /// Which way a failure of a ``Kind`` happened, where the kind has more than one way: which rule
    /// a header broke, why a parameter could not be encoded, what was wrong with a multipart file.
    ///
    /// An extensible set of values like ``Kind``: compare with `==`, or `switch` with a `default`.
    /// Each value names the kind it comes with. The reasons named here are those an app acts on
    /// (a file the user picked is gone, the outbox is full, a pin did not match...). A request
    /// that could not be made because of the app's own code (a header, parameter or multipart body
    /// that breaks a rule, a file URL that is not a readable file) has a reason too, to read rather
    /// than to branch on: its ``name`` (e.g. `"invalidHeaderValueCharacter"`) and the error's
    /// ``NetworkError/failureReason`` say which rule was broken.
    ///
    /// ```swift
    /// if error.kind == .fileOperationFailed, error.reason == .fileNotFound {
    ///     print("missing:", error.fileURL?.path ?? "?")
    /// }
    /// ```
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The name of the reason, e.g. `"fileNotFound"`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The reason's name.
        public var description: String { name }

        // MARK: Headers (kind `invalidHeader`)

        /// ``Kind/invalidHeader``: the header's name is the empty string.
        static let emptyHeaderName = Reason("emptyHeaderName")
        /// ``Kind/invalidHeader``: the name holds a character that is not allowed in an RFC 9110
        /// token (CR, LF, NUL, a space, a colon, a non-ASCII letter...); see
        /// ``NetworkError/invalidCharacter``.
        static let invalidHeaderNameCharacter = Reason("invalidHeaderNameCharacter")
        /// ``Kind/invalidHeader``: the value holds CR, LF, NUL or another control character (a tab
        /// is allowed); see ``NetworkError/invalidCharacter``.
        static let invalidHeaderValueCharacter = Reason("invalidHeaderValueCharacter")

        // MARK: Parameters (kind `parameterEncodingFailed`)

        /// ``Kind/parameterEncodingFailed``: a parameter's type is not supported (see
        /// ``Parameters``); see ``NetworkError/parameterKeyPath`` and ``NetworkError/valueType``.
        static let unsupportedValue = Reason("unsupportedValue")
        /// ``Kind/parameterEncodingFailed``: a supported type with a value that cannot be sent, such
        /// as NaN or infinity in JSON; see ``NetworkError/parameterKeyPath``.
        static let invalidValue = Reason("invalidValue")
        /// ``Kind/parameterEncodingFailed``: the `Encodable` body or the JSON serialisation of the
        /// parameters failed; the encoder's error is the ``NetworkError/underlyingError``.
        static let jsonEncodingFailed = Reason("jsonEncodingFailed")
        /// ``Kind/parameterEncodingFailed``: the request given to ``ParameterEncoding/encode(_:with:)``
        /// has no URL.
        static let missingURL = Reason("missingURL")
        /// ``Kind/parameterEncodingFailed``: the request's URL could not take a query string.
        static let invalidQueryURL = Reason("invalidQueryURL")

        // MARK: Files (kind `fileOperationFailed`)

        /// ``Kind/fileOperationFailed``: a file to upload (or a multipart file part) is given by a
        /// URL that is not a `file://` URL.
        static let notAFileURL = Reason("notAFileURL")
        /// ``Kind/fileOperationFailed``: a file to upload does not exist.
        public static let fileNotFound = Reason("fileNotFound")
        /// ``Kind/fileOperationFailed``: a file to upload is a directory.
        static let fileIsDirectory = Reason("fileIsDirectory")
        /// ``Kind/fileOperationFailed``: a file to upload exists but cannot be read.
        public static let fileNotReadable = Reason("fileNotReadable")
        /// ``Kind/fileOperationFailed``: a multipart file part's size changed between measuring it
        /// and copying it.
        static let fileSizeChanged = Reason("fileSizeChanged")
        /// ``Kind/fileOperationFailed``: the file a multipart body was to be written to exists
        /// already (Formwork never overwrites a file it did not create).
        static let outputFileExists = Reason("outputFileExists")
        /// ``Kind/fileOperationFailed``: the file a multipart body was to be written to could not
        /// be created or written.
        static let outputNotWritable = Reason("outputNotWritable")

        // MARK: Multipart bodies (kind `multipartEncodingFailed`)

        /// ``Kind/multipartEncodingFailed``: a part's MIME type holds control characters (CR,
        /// LF...) that would break its header.
        static let invalidMIMEType = Reason("invalidMIMEType")
        /// ``Kind/multipartEncodingFailed``: the boundary given to
        /// ``MultipartFormData/init(boundary:)`` is not a valid RFC 2046 boundary.
        static let invalidBoundary = Reason("invalidBoundary")
        /// ``Kind/multipartEncodingFailed``: a part's content holds the boundary, so the body could
        /// not be parsed back; ``NetworkError/fileURL`` names the file when the part is one.
        static let boundaryCollision = Reason("boundaryCollision")

        // MARK: The outbox (kind `outbox`)

        /// ``Kind/outbox``: another outbox, in this process or another, has the directory open
        /// (each directory has one outbox at a time); see ``NetworkError/fileURL``.
        public static let directoryInUse = Reason("directoryInUse")
        /// ``Kind/outbox``: the outbox's directory or a file in it could not be created, read or
        /// written (no permission, no space left...); the system's error is the
        /// ``NetworkError/underlyingError``, and ``NetworkError/fileURL`` names the path.
        public static let directoryUnusable = Reason("directoryUnusable")
        /// ``Kind/outbox``: the request would take the outbox past its limit of requests or bytes;
        /// it was not enqueued.
        public static let full = Reason("full")
        /// ``Kind/outbox``: the request's expiry passed before the server gave a final answer; it
        /// left the outbox unsent (or without an answer).
        public static let expired = Reason("expired")
        /// ``Kind/outbox``: the outbox was closed (``Outbox/close()``); it takes no more requests.
        public static let closed = Reason("closed")

        // MARK: Trust (kinds `serverTrust` and `invalidTrustPolicy`)

        /// ``Kind/serverTrust``: no certificate of the chain the server presented has a public key
        /// whose hash is one of the host's pins; ``NetworkError/presentedPins`` lists the chain's
        /// hashes, ``NetworkError/expectedPins`` the pins.
        public static let pinMismatch = Reason("pinMismatch")
        /// ``Kind/serverTrust``: the transport cannot enforce the host's pins, trust anchors or
        /// client identity (corelibs `URLSession` on Linux gives no access to the server's
        /// certificates): the request was not sent.
        public static let trustNotEnforceable = Reason("trustNotEnforceable")
        /// ``Kind/invalidTrustPolicy``: a pin set has one pin and does not say that it knowingly
        /// has no backup pin (see ``PinSet``).
        public static let missingBackupPin = Reason("missingBackupPin")
        /// ``Kind/invalidTrustPolicy``: a pin is not the base64 text of a 32-byte SHA-256 hash.
        public static let invalidPin = Reason("invalidPin")
        /// ``Kind/invalidTrustPolicy``: a host pattern is empty or malformed (see ``PinSet``).
        public static let invalidHostPattern = Reason("invalidHostPattern")
        /// ``Kind/invalidTrustPolicy``: a certificate is not a readable X.509 certificate (DER or
        /// PEM).
        public static let invalidCertificate = Reason("invalidCertificate")

        // MARK: WebSockets (kind `webSocket`)

        /// ``Kind/webSocket``: the server answered the opening handshake with something other
        /// than a valid `101`; ``NetworkError/response`` has the status, ``NetworkError/data`` the
        /// body when the platform gives it.
        public static let webSocketHandshakeRefused = Reason("webSocketHandshakeRefused")
        /// ``Kind/webSocket``: the server broke the WebSocket protocol (a bad frame, text that is
        /// not UTF-8, a bad close frame).
        public static let webSocketProtocolError = Reason("webSocketProtocolError")
        /// ``Kind/webSocket``: the server sent a message larger than the socket's
        /// ``WebSocket/maximumMessageSize``; the connection was closed with 1009.
        public static let webSocketMessageTooBig = Reason("webSocketMessageTooBig")
        /// ``Kind/webSocket``: the session's transport cannot open WebSockets (corelibs URLSession
        /// on Linux); the error names what to set instead (``Session/Configuration/webSocketTransport``).
        public static let webSocketsUnavailable = Reason("webSocketsUnavailable")
        /// ``Kind/webSocket``: a message or ping was sent on a socket that is closed or failed
        /// (or closed while it waited to reconnect); it was not sent.
        public static let webSocketClosed = Reason("webSocketClosed")
    }
}

extension NetworkError {
    /// The specifics a failure carries beyond its ``Kind``, given when an error is made: the
    /// ``Reason``, and the header, parameter, file or server code it is about.
    ///
    /// Formwork fills in what each kind has; read the values on the error itself
    /// (``NetworkError/reason``, ``NetworkError/headerName``, ``NetworkError/businessCode``...).
    /// An app makes one to build an error in a test:
    ///
    /// ```swift
    /// let error = NetworkError(
    ///     .business, failureReason: "The server answered code 1001.",
    ///     details: .init(businessCode: "1001", businessMessage: "Insufficient balance"))
    /// ```
    public struct Details: Hashable, Sendable {
        // Read through the error's own properties (`error.headerName`, …), one name each.
        /// Which way the failure happened, for kinds that have more than one way.
        var reason: Reason?
        /// The name of the rejected header, as given (``Kind/invalidHeader``).
        var headerName: String?
        /// The first character that broke a header's rules (``Kind/invalidHeader``).
        var invalidCharacter: Unicode.Scalar?
        /// The key path of the parameter that could not be encoded, e.g. `user[tags][0]`
        /// (``Kind/parameterEncodingFailed``).
        var parameterKeyPath: String?
        /// The type of the parameter value that is not supported, e.g. `Data`
        /// (``Reason/unsupportedValue``).
        var valueType: String?
        /// The file involved: the file to upload, a multipart file part, the file a multipart
        /// body was being written to, or the outbox's directory or file.
        var fileURL: URL?
        /// The server's business code, as text (``Kind/business``).
        var businessCode: String?
        /// The server's business message, if it sent one (``Kind/business``).
        var businessMessage: String?
        /// The host whose certificate chain was refused, or whose trust could not be enforced
        /// (``Kind/serverTrust``), or the host pattern that could not be read
        /// (``Kind/invalidTrustPolicy``).
        var host: String?
        /// The pins the host expected (``Reason/pinMismatch``): base64 SHA-256 hashes of public keys.
        var expectedPins: [String]?
        /// The base64 SHA-256 hashes of the public keys of the chain the server presented, leaf
        /// first (``Reason/pinMismatch``).
        var presentedPins: [String]?

        /// Creates the specifics of an error; every value is optional.
        /// - Parameters:
        ///   - reason: Which way the failure happened.
        ///   - headerName: The name of the rejected header.
        ///   - invalidCharacter: The character that broke a header's rules.
        ///   - parameterKeyPath: The key path of the parameter that could not be encoded.
        ///   - valueType: The type of an unsupported parameter value.
        ///   - fileURL: The file involved.
        ///   - businessCode: The server's business code.
        ///   - businessMessage: The server's business message.
        ///   - host: The host whose trust failed.
        ///   - expectedPins: The pins the host expected.
        ///   - presentedPins: The hashes of the public keys the server presented.
        public init(
            reason: Reason? = nil,
            headerName: String? = nil,
            invalidCharacter: Unicode.Scalar? = nil,
            parameterKeyPath: String? = nil,
            valueType: String? = nil,
            fileURL: URL? = nil,
            businessCode: String? = nil,
            businessMessage: String? = nil,
            host: String? = nil,
            expectedPins: [String]? = nil,
            presentedPins: [String]? = nil
        ) {
            self.reason = reason
            self.headerName = headerName
            self.invalidCharacter = invalidCharacter
            self.parameterKeyPath = parameterKeyPath
            self.valueType = valueType
            self.fileURL = fileURL
            self.businessCode = businessCode
            self.businessMessage = businessMessage
            self.host = host
            self.expectedPins = expectedPins
            self.presentedPins = presentedPins
        }

        /// Whether nothing is set (such details are not stored).
        var isEmpty: Bool { self == Details() }
    }

    /// The details of one error, kept out of line so that an error without any stays small (it
    /// travels in every response's `Result`).
    final class DetailsStorage: Sendable {
        let details: Details

        init(_ details: Details) {
            self.details = details
        }
    }

    /// Which way the failure happened, for kinds that have more than one way (see ``Reason``);
    /// `nil` when the kind says it all.
    public var reason: Reason? { details.reason }

    /// The name of the rejected header, as given, for a ``Kind/invalidHeader`` error (its value is
    /// never kept).
    public var headerName: String? { details.headerName }

    /// The first character that broke a header's rules, for a ``Kind/invalidHeader`` error
    /// (reason `invalidHeaderNameCharacter` or `invalidHeaderValueCharacter`).
    public var invalidCharacter: Unicode.Scalar? { details.invalidCharacter }

    /// The key path of the parameter that could not be encoded, e.g. `user[tags][0]`, for a
    /// ``Kind/parameterEncodingFailed`` error (reason `unsupportedValue` or `invalidValue`).
    public var parameterKeyPath: String? { details.parameterKeyPath }

    /// The type of a parameter value that is not supported, e.g. `Data` (reason
    /// `unsupportedValue`).
    public var valueType: String? { details.valueType }

    /// The file involved in a file, multipart or outbox failure: the file to upload, a multipart
    /// file part, the file a multipart body was being written to, or the outbox's directory or
    /// file.
    public var fileURL: URL? { details.fileURL }

    /// The server's business code, as text (JSON numbers become their decimal text), for a
    /// ``Kind/business`` error.
    public var businessCode: String? { details.businessCode }

    /// The server's business message, for a ``Kind/business`` error whose body had one.
    public var businessMessage: String? { details.businessMessage }
}

extension NetworkError {
    /// The host of a ``Kind/serverTrust`` failure (the one whose chain was refused, or whose trust
    /// the transport could not enforce), or the host pattern a ``Kind/invalidTrustPolicy`` error
    /// is about.
    public var host: String? { details.host }

    /// The pins the host expected, for a ``Reason/pinMismatch`` failure.
    public var expectedPins: [String]? { details.expectedPins }

    /// The base64 SHA-256 hashes of the public keys of the chain the server presented, leaf first,
    /// for a ``Reason/pinMismatch`` failure: copy the right one into your ``PinSet``.
    public var presentedPins: [String]? { details.presentedPins }
}
