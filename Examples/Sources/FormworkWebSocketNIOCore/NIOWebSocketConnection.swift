import Formwork
import Foundation
import NIOCore
import NIOWebSocket

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One open WebSocket on a NIO channel (see ``NIOWebSocketTransport``). Every call hops to the
/// channel's event loop, where ``ConnectionHandler`` keeps the connection's state.
final class NIOWebSocketConnection: WebSocketConnection {
    private let channel: any Channel
    private let handler: ConnectionHandler

    init(channel: any Channel, handler: ConnectionHandler) {
        self.channel = channel
        self.handler = handler
    }

    var subprotocol: String? { handler.subprotocol }

    func receive() async throws -> WebSocketInbound {
        let promise = channel.eventLoop.makePromise(of: WebSocketInbound.self)
        let handler = self.handler  // used on its event loop only
        channel.eventLoop.execute { handler.receive(promise) }
        return try await promise.futureResult.get()
    }

    func send(_ message: WebSocketMessage) async throws {
        var buffer = channel.allocator.buffer(capacity: 0)
        let opcode: WebSocketOpcode
        switch message {
        case .text(let text):
            buffer.writeString(text)
            opcode = .text
        case .binary(let data):
            buffer.writeBytes(data)
            opcode = .binary
        }
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: buffer)
        do {
            try await channel.writeAndFlush(frame).get()
        } catch {
            throw ConnectionHandler.lost(error)
        }
    }

    func sendPing() async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let handler = self.handler
        channel.eventLoop.execute { handler.ping(promise) }
        try await promise.futureResult.get()
    }

    func close(_ close: WebSocketClose) async {
        let handler = self.handler
        try? await channel.eventLoop.submit { handler.startClose(close) }.get()
    }

    func cancel() {
        channel.close(promise: nil)
    }
}

/// The state of one connection, on its event loop: messages and the server's close read ahead of
/// demand (at most what one socket read held), the pending `receive()`, the pings awaiting their
/// pongs, and the close handshake.
final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {  // used on its event loop only
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let subprotocol: String?
    private let closeTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var inbound: [Result<WebSocketInbound, NetworkError>] = []
    private var pending: EventLoopPromise<WebSocketInbound>?
    private var pings: [EventLoopPromise<Void>] = []
    private var sentClose = false
    private var receivedClose = false
    private var ended = false
    /// Whether a read is under way (asked for and not yet completed).
    private var reading = false

    init(subprotocol: String?, closeTimeout: TimeAmount) {
        self.subprotocol = subprotocol
        self.closeTimeout = closeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // A server that sends and drops at once can close the channel while the handshake ends:
        // the channel went inactive before this handler was added, so no `channelInactive` comes
        // here. The messages read with the handshake are delivered in this same tick; end after.
        if !context.channel.isActive {
            let handler = self
            context.eventLoop.execute { handler.end(with: Self.lost(nil)) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The pipeline is torn down (the channel closed): nothing more can be read.
        end(with: Self.lost(nil))
        self.context = nil
    }

    // MARK: Demand

    func receive(_ promise: EventLoopPromise<WebSocketInbound>) {
        if !inbound.isEmpty {
            promise.completeWith(inbound.removeFirst().mapError { $0 as any Error })
            return
        }
        if ended {
            promise.fail(Self.lost(nil))
            return
        }
        pending = promise
        requestRead()
    }

    private func requestRead() {
        guard let context, !reading, !ended else { return }
        reading = true
        context.read()
    }

    private func deliver(_ item: Result<WebSocketInbound, NetworkError>) {
        if let pending, inbound.isEmpty {
            self.pending = nil
            pending.completeWith(item.mapError { $0 as any Error })
        } else {
            inbound.append(item)
        }
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            deliver(.success(.message(.text(data.readString(length: data.readableBytes) ?? ""))))
        case .binary:
            var data = frame.unmaskedData
            deliver(.success(.message(.binary(Data(data.readBytes(length: data.readableBytes) ?? [])))))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            if !pings.isEmpty { pings.removeFirst().succeed() }
        case .connectionClose:
            guard !receivedClose else { return }
            receivedClose = true
            var data = frame.unmaskedData
            let code =
                data.readInteger(as: UInt16.self).map { WebSocketCloseCode(rawValue: $0) }
                ?? .noStatusReceived
            let reason = data.readString(length: data.readableBytes) ?? ""
            deliver(.success(.close(WebSocketClose(code: code, reason: reason))))
            if sentClose {
                context.close(promise: nil)
            } else {
                // Answer with the same code, then close.
                sentClose = true
                var answer = context.channel.allocator.buffer(capacity: 2)
                if code != .noStatusReceived { answer.writeInteger(code.rawValue) }
                let frame = WebSocketFrame(
                    fin: true, opcode: .connectionClose, maskKey: .random(), data: answer)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil)
                }
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        // Still asked for a message and none came whole yet: read on.
        if pending != nil { requestRead() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure: NetworkError
        switch error {
        case NIOWebSocketError.invalidFrameLength,
            NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            failure = NetworkError(
                .webSocket, failureReason: "The server sent a WebSocket message over the limit.",
                details: .init(reason: .webSocketMessageTooBig), underlyingError: error)
            sendCloseFrame(WebSocketClose(code: .messageTooBig), context: context)
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            failure = NetworkError(
                .webSocket, failureReason: "The server broke the WebSocket protocol: \(error)",
                details: .init(reason: .webSocketProtocolError), underlyingError: error)
            sendCloseFrame(WebSocketClose(code: .protocolError), context: context)
        default:
            failure = Self.lost(error)
        }
        end(with: failure)
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server closed its side (connections allow half-closure, see `EndOfInputGate`): what
        // was read is queued; nothing more comes.
        if event as? ChannelEvent == .some(.inputClosed) {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // On the next tick: an error fired while the channel closes (a frame over the limit)
        // names the failure better than "lost".
        let handler = self
        context.eventLoop.execute { handler.end(with: Self.lost(nil)) }
        context.fireChannelInactive()
    }

    /// The connection ended: what is queued stays for the reader, then `failure` (unless the
    /// server's close came first); pings fail.
    private func end(with failure: NetworkError) {
        guard !ended else { return }
        ended = true
        if !receivedClose { deliver(.failure(failure)) }
        for ping in pings { ping.fail(failure) }
        pings = []
        if let pending {
            self.pending = nil
            pending.fail(failure)
        }
    }

    // MARK: Pings and closing

    func ping(_ promise: EventLoopPromise<Void>) {
        guard let context, !ended else {
            promise.fail(Self.lost(nil))
            return
        }
        pings.append(promise)
        var payload = context.channel.allocator.buffer(capacity: 8)
        payload.writeInteger(UInt64.random(in: 0...UInt64.max))
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: payload)),
            promise: nil)
    }

    func startClose(_ close: WebSocketClose) {
        guard let context, !ended else { return }
        sendCloseFrame(close, context: context)
        // The server's answer is awaited; a server that never answers is dropped.
        context.eventLoop.scheduleTask(in: closeTimeout) { [weak self] in
            guard let self, !self.ended else { return }
            self.context?.close(promise: nil)
        }
        requestRead()
    }

    private func sendCloseFrame(_ close: WebSocketClose, context: ChannelHandlerContext) {
        guard !sentClose else { return }
        sentClose = true
        var buffer = context.channel.allocator.buffer(capacity: 2 + close.reason.utf8.count)
        buffer.writeInteger(close.code.rawValue)
        buffer.writeString(close.reason)
        context.writeAndFlush(
            wrapOutboundOut(
                WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: buffer)),
            promise: nil)
    }

    /// A connection that ended without a close frame.
    static func lost(_ error: (any Error)?) -> NetworkError {
        NetworkError(
            .transport,
            failureReason: "The WebSocket connection was lost\(error.map { ": \($0)" } ?? ".")",
            underlyingError: URLError(.networkConnectionLost))
    }
}
