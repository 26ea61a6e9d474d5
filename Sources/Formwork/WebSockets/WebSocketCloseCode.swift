/// A WebSocket close code (RFC 6455, section 7.4): why a side closed the connection.
///
/// Codes 3000-4999 are for libraries and applications: make them with ``init(rawValue:)``.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's number.
    public let rawValue: UInt16

    /// A close code.
    /// - Parameter rawValue: The code's number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the side is going away (a server shutting down, a page left).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the other side broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the side cannot accept (binary for a text-only endpoint).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame carried no code (never sent; reported for a close without one).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent; reported for a drop).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not match its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the side's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the server did not agree to an extension the client requires.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// 1012: the server is restarting; come back later.
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// 1013: the server is overloaded; come back later.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)

    /// The number, e.g. `1000`.
    public var description: String { String(rawValue) }
}

/// A close frame's content: the code and the reason (UTF-8, at most 123 bytes on the wire).
public struct WebSocketClose: Sendable, Hashable {
    /// The close code.
    public var code: WebSocketCloseCode
    /// The reason, empty when none was given.
    public var reason: String

    /// A close frame's content.
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: The reason.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}
