import NIOCore
import NIOWebSocket

/// One accepted WebSocket on the demo server, doing what its endpoint says (see `WebSocketRoutes`).
/// Messages arrive whole (a `NIOWebSocketFrameAggregator` sits before it); pings are answered
/// except on `/ws/silent`. Pushes wait for the socket to drain (back-pressure from the client).
final class WebSocketServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let behaviour: WebSocketRoutes.Behaviour
    private var sentClose = false
    /// The next message of a push, and how many are left.
    private var pushed = 0
    private var pushTimer: Scheduled<Void>?

    init(_ behaviour: WebSocketRoutes.Behaviour) {
        self.behaviour = behaviour
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        start(context: context)
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private var started = false

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        switch behaviour {
        case .echo, .silent: break
        case .push: push(context: context)
        case .fragmented(let parts):
            for index in 0..<parts {
                var buffer = context.channel.allocator.buffer(capacity: 16)
                buffer.writeString(index == 0 ? "part0" : " part\(index)")
                let frame = WebSocketFrame(
                    fin: index == parts - 1, opcode: index == 0 ? .text : .continuation, data: buffer)
                context.write(wrapOutboundOut(frame), promise: nil)
            }
            context.flush()
        case .big(let size):
            var buffer = context.channel.allocator.buffer(capacity: size)
            for index in 0..<size { buffer.writeInteger(UInt8(index % 251)) }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: buffer)), promise: nil)
        case .close(let code, let reason):
            sendClose(context: context, code: code, reason: reason)
        case .drop(let after):
            for index in 0..<after { sendText(context: context, String(index)) }
            context.flush()
            context.close(promise: nil)
        case .auth(let token, let drop, let realm):
            sendText(context: context, token)
            context.flush()
            if drop {
                AuthRoutes.realms.withLockedValue { realms in
                    realms[realm, default: AuthRoutes.Realm()].generation += 1
                }
                context.close(promise: nil)
            }
        }
    }

    /// Sends the push's messages while the socket is writable; at the rate asked, one per tick.
    private func push(context: ChannelHandlerContext) {
        guard case .push(let count, let rate, let size, let closes) = behaviour, !sentClose else { return }
        while pushed < count, context.channel.isWritable {
            var text = String(pushed)
            if size > text.utf8.count { text += String(repeating: ".", count: size - text.utf8.count) }
            sendText(context: context, text)
            pushed += 1
            if rate > 0 { break }
        }
        context.flush()
        if pushed == count {
            if closes { sendClose(context: context, code: 1000, reason: "done") }
            return
        }
        guard rate > 0 else { return }  // resumes when the socket drains
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pushTimer = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(1_000_000_000 / rate))) {
            let (handler, context) = loopBound.value
            handler.push(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .push(_, let rate, _, _) = behaviour, rate == 0 {
            push(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pushTimer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            if case .silent = behaviour { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            if sentClose {
                context.close(promise: nil)
                return
            }
            sentClose = true
            // Answer with the same code and reason, then close.
            let answer = WebSocketFrame(
                fin: true, opcode: .connectionClose, data: data.readSlice(length: data.readableBytes) ?? data)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
        case .text, .binary:
            if case .echo = behaviour {
                let echo = WebSocketFrame(fin: true, opcode: frame.opcode, data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(echo), promise: nil)
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A frame over the limit or a protocol error: close with the matching code.
        if let error = error as? NIOWebSocketError, case .invalidFrameLength = error {
            sendClose(context: context, code: 1009, reason: "too big")
        } else {
            context.close(promise: nil)
        }
    }

    private func sendText(context: ChannelHandlerContext, _ text: String) {
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
    }

    private func sendClose(context: ChannelHandlerContext, code: Int, reason: String) {
        guard !sentClose else { return }
        sentClose = true
        var buffer = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        buffer.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: code))
        buffer.writeString(reason)
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)), promise: nil)
    }
}
