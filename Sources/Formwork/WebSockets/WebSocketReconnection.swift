import Foundation

/// Whether and when a ``WebSocket`` connects again after its connection ends. Off by default
/// (``never``).
///
/// With ``standard`` (or a policy of your own), a connection that drops, fails to open (no
/// network, a 5xx, a timeout), or that the server closes with a code not in ``finalCloseCodes``,
/// is followed by another one after a wait: ``initialDelay``, doubled for each further
/// connection in a row that did not open, capped at ``maximumDelay``, then lengthened by up to
/// ``jitter`` of itself so that many clients dropped at once do not return at once. After
/// ``maximumAttempts`` connections in a row that did not open, the socket fails with the last
/// error. A handshake the server refuses with a 4xx (other than 408 and 429), a protocol error
/// and a message over the limit end the socket for good. The session's adapters and
/// authenticator run for each connection.
public struct WebSocketReconnection: Sendable, Equatable {
    /// Whether the socket connects again at all.
    public var reconnects: Bool
    /// The wait before the first reconnection (seconds).
    public var initialDelay: TimeInterval
    /// The longest wait (seconds).
    public var maximumDelay: TimeInterval
    /// The most added to a wait at random, as a fraction of it (0.25: up to a quarter more).
    public var jitter: Double
    /// How many connections in a row may fail to open before the socket gives up; `nil` for no
    /// limit.
    public var maximumAttempts: Int?
    /// The server's close codes that mean "do not come back": after one, the socket is closed
    /// for good. By default 1000 (done), 1002, 1003, 1007, 1008, 1009 and 1010; a server that
    /// restarts sends 1001, 1012 or 1013, and the socket returns.
    public var finalCloseCodes: Set<WebSocketCloseCode>

    /// Creates a policy.
    /// - Parameters:
    ///   - initialDelay: The wait before the first reconnection.
    ///   - maximumDelay: The cap on every wait.
    ///   - jitter: The most added at random, as a fraction of the wait.
    ///   - maximumAttempts: Connections in a row that may fail to open; `nil` for no limit.
    ///   - finalCloseCodes: The server's close codes after which the socket stays closed.
    public init(
        initialDelay: TimeInterval = 1, maximumDelay: TimeInterval = 30, jitter: Double = 0.25,
        maximumAttempts: Int? = 10, finalCloseCodes: Set<WebSocketCloseCode> = Self.defaultFinalCloseCodes
    ) {
        self.reconnects = true
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumAttempts = maximumAttempts
        self.finalCloseCodes = finalCloseCodes
    }

    /// The close codes after which a socket stays closed unless told otherwise.
    public static let defaultFinalCloseCodes: Set<WebSocketCloseCode> = [
        .normalClosure, .protocolError, .unsupportedData, .invalidFramePayloadData, .policyViolation,
        .messageTooBig, .mandatoryExtensionMissing,
    ]

    /// Reconnects after 1 s, doubling up to 30 s, with a quarter of jitter, at most 10 failed
    /// connections in a row.
    public static let standard = WebSocketReconnection()

    /// One connection only: the socket ends when its connection ends (the default).
    public static let never: WebSocketReconnection = {
        var policy = WebSocketReconnection()
        policy.reconnects = false
        return policy
    }()
}
