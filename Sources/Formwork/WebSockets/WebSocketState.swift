import Foundation

/// Where a ``WebSocket`` stands: what a screen shows beside the messages, what
/// ``WebSocket/updates()`` hands the reading loop and what the `.load` and `.warn` hooks follow.
///
/// A socket goes `connecting`, `open`, then either `closed` (by either side, or cancelled) or,
/// when it reconnects (see ``WebSocketReconnection``), `reconnecting(after:)`, `connecting` and
/// `open` again; `failed` ends it when it cannot go on.
public enum WebSocketState: Sendable {
    /// Not connected yet: nothing read, sent or hooked.
    case idle
    /// The opening handshake is under way.
    case connecting
    /// The server accepted the socket; messages flow both ways.
    /// `subprotocol` is the one the server chose, if any.
    case open(subprotocol: String?)
    /// The connection ended; the socket connects again after this many seconds.
    case reconnecting(after: TimeInterval)
    /// The socket is closed for good: by the server (its close code and reason), by ``WebSocket/close(_:reason:)``
    /// (the server's answer to it), or cancelled (`nil`).
    case closed(WebSocketClose?)
    /// The socket ended with this error and does not reconnect.
    case failed(NetworkError)

    /// `true` for `closed` and `failed`: nothing follows.
    public var isFinal: Bool {
        switch self {
        case .closed, .failed: true
        default: false
        }
    }
}

/// What ``WebSocket/updates()`` hands the reading loop: each message, and each change of the
/// socket's state in order with them.
public enum WebSocketUpdate: Sendable {
    /// A message, as ``WebSocket/messages()`` gives it.
    case message(WebSocketMessage)
    /// The socket's state changed (see ``WebSocketState``).
    case state(WebSocketState)
}
