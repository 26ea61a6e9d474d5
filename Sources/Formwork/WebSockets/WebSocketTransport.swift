import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What opens WebSocket connections for a ``Session``: the narrow part of WebSockets that depends
/// on the platform. Formwork keeps every rule above it (adapters and authentication at each
/// connection, the socket's state, reconnection, back-pressure, the close handshake's outcome).
///
/// Set one in ``Session/Configuration/webSocketTransport``. Without one, a session over
/// URLSession uses `URLSessionWebSocketTask` on Apple platforms; on Linux, corelibs URLSession
/// cannot open WebSockets, so a socket fails at once with ``NetworkError/Reason/webSocketsUnavailable``
/// until a transport is set (the Examples package has one on SwiftNIO).
public protocol WebSocketTransport: Sendable {
    /// Opens a connection: sends the opening handshake and returns once the server accepted it.
    /// - Parameters:
    ///   - request: The final handshake request (a `GET` with the session's and the form's
    ///     headers, after every adapter); its URL's scheme is `ws` or `wss`, and its
    ///     `timeoutInterval` bounds the handshake.
    ///   - subprotocols: The subprotocols to offer, most preferred first (also in the request's
    ///     `Sec-WebSocket-Protocol` header).
    ///   - maximumMessageSize: The largest message to accept, in bytes: a larger one must fail
    ///     the connection with ``NetworkError/Reason/webSocketMessageTooBig`` (after closing it
    ///     with 1009), without holding more than about this many bytes.
    /// - Returns: The open connection.
    /// - Throws: ``NetworkError``: ``NetworkError/Reason/webSocketHandshakeRefused`` with the
    ///   response (and its body when the platform gives it) when the server answers anything but
    ///   a valid `101`; a ``NetworkError/Kind/transport`` error when it cannot be reached. Other
    ///   errors are reported as transport failures.
    func connect(_ request: URLRequest, subprotocols: [String], maximumMessageSize: Int) async throws
        -> any WebSocketConnection
}

/// One open WebSocket connection, made by a ``WebSocketTransport``.
///
/// Formwork calls ``receive()`` only when its reader has room for another message, and at most
/// one call of ``receive()`` runs at a time. A connection that reads from the network only for
/// that demand (about one socket read ahead) lets a reader that stops reading slow the server
/// down; one that reads ahead by itself (as `URLSessionWebSocketTask` does) still delivers
/// messages only on demand. ``send(_:)``, ``sendPing()`` and ``close(_:)`` may run at the same
/// time as a ``receive()``.
public protocol WebSocketConnection: AnyObject, Sendable {
    /// The subprotocol the server chose, or `nil`.
    var subprotocol: String? { get }

    /// Waits for the next message, whole, or for the server's close frame.
    /// - Returns: The message, or the server's close (the connection then answers it and ends).
    /// - Throws: ``NetworkError``: the connection dropped (``NetworkError/Kind/transport``), the
    ///   server broke the protocol (``NetworkError/Reason/webSocketProtocolError``) or sent a
    ///   message over the limit (``NetworkError/Reason/webSocketMessageTooBig``).
    func receive() async throws -> WebSocketInbound

    /// Sends a message; returns once the connection took it (not once the server read it).
    /// - Parameter message: The message.
    /// - Throws: ``NetworkError`` when the connection is closed or fails.
    func send(_ message: WebSocketMessage) async throws

    /// Sends a ping and returns when its pong arrives.
    /// - Throws: ``NetworkError`` when the connection closes or fails first.
    func sendPing() async throws

    /// Starts the close handshake: sends a close frame with `close`'s code and reason. The
    /// server's answering close frame arrives through ``receive()``.
    /// - Parameter close: The code and reason.
    func close(_ close: WebSocketClose) async

    /// Drops the connection at once, without a close handshake. Calling it more than once, or
    /// after the end, does nothing.
    func cancel()
}

/// What ``WebSocketConnection/receive()`` returns: a message or the server's close.
public enum WebSocketInbound: Sendable, Hashable {
    /// A whole message.
    case message(WebSocketMessage)
    /// The server's close frame (`1005` when it carried no code).
    case close(WebSocketClose)
}
