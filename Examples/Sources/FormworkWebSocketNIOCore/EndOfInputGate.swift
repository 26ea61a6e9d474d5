import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Holds back the server's end of input while the handshake's pipeline is swapped for the
/// WebSocket one.
///
/// A server may answer the handshake, send a message and close in one go. NIO removes the HTTP
/// decoder on the tick after the `101`, and only then hands the bytes it read past the response
/// (the message) to the WebSocket handlers; an end of input seen by the decoder before that makes it
/// drop those bytes. So connections allow remote half-closure, and this handler, placed in front
/// of the HTTP handlers:
/// - before an upgrade is accepted, passes the end of input on and closes the channel (a refusal
///   read to its end, or a server gone during the handshake);
/// - once the upgrade is accepted, keeps it until ``release()``, called when the WebSocket
///   handlers are in place and the bytes read past the response were handed to them;
/// - after that, passes it on (``ConnectionHandler`` then closes the channel).
final class EndOfInputGate: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private enum Phase {
        case handshake
        case upgrading(inputClosed: Bool)
        case open
    }

    private var phase = Phase.handshake
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// The server accepted the upgrade: hold its end of input from now on.
    func upgradeAccepted() {
        if case .handshake = phase { phase = .upgrading(inputClosed: false) }
    }

    /// The WebSocket handlers are in place: pass on an end of input held back.
    func release() {
        guard case .upgrading(let inputClosed) = phase else { return }
        phase = .open
        if inputClosed { context?.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event as? ChannelEvent == .some(.inputClosed) else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch phase {
        case .handshake:
            context.fireUserInboundEventTriggered(event)
            context.close(promise: nil)
        case .upgrading:
            phase = .upgrading(inputClosed: true)
        case .open:
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// NIO's WebSocket upgrader, telling an ``EndOfInputGate`` when the server's `101` is accepted.
struct GatedWebSocketUpgrader: NIOHTTPClientProtocolUpgrader {
    let upgrader: NIOWebSocketClientUpgrader
    let gate: EndOfInputGate

    var supportedProtocol: String { upgrader.supportedProtocol }
    var requiredUpgradeHeaders: [String] { upgrader.requiredUpgradeHeaders }

    func addCustom(upgradeRequestHeaders: inout HTTPHeaders) {
        upgrader.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders)
    }

    func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool {
        let allowed = upgrader.shouldAllowUpgrade(upgradeResponse: upgradeResponse)
        if allowed { gate.upgradeAccepted() }
        return allowed
    }

    func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
        upgrader.upgrade(context: context, upgradeResponse: upgradeResponse)
    }
}
