import Foundation

/// A form for a WebSocket: the URL (`ws://`, `wss://`, or `http://` / `https://`, which mean the
/// same), the headers of the opening handshake, and the subprotocols offered.
///
/// ```swift
/// struct ChatForm: WebSocketFormable {
///     let room: String
///     var url: String { "wss://chat.example.com/rooms/\(room)" }
///     var subprotocols: [String] { ["chat.v2"] }
/// }
/// let socket = session.webSocket(ChatForm(room: "lobby"))
/// ```
///
/// Like every form, it is read once, when ``Session/webSocket(_:options:)`` is called; the
/// session's headers, its adapters and its authenticator apply at each connection, so a
/// reconnection carries a refreshed token. The form's `method` is not used (the handshake is a
/// `GET`); its `timeout` bounds the opening handshake.
public protocol WebSocketFormable: Formable {
    /// The subprotocols offered in `Sec-WebSocket-Protocol`, most preferred first; the server
    /// picks one (see ``WebSocket/subprotocol``). Defaults to none.
    var subprotocols: [String] { get }
}

extension WebSocketFormable {
    /// No subprotocol.
    public var subprotocols: [String] { [] }
}
