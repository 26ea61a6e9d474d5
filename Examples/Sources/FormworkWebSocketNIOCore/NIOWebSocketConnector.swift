import Formwork
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The WebSocket client on SwiftNIO (`NIOWebSocket`) under `NIOWebSocketTransport`, without a TLS
/// library of its own: whoever makes it says how a `wss` connection gets its TLS handler.
/// `NIOWebSocketTransport` (the `FormworkWebSocketNIO` product) gives it swift-nio-ssl's; the demo,
/// which builds no TLS library, uses it for `ws` URLs alone.
///
/// Each connection is a NIO channel that reads from the socket only when Formwork asks for the
/// next message (auto-read off), so a reader that stops reading stops the socket and the server
/// is slowed down by TCP. Fragmented messages are joined (`NIOWebSocketFrameAggregator`) up to the
/// socket's maximum message size; a larger message or frame closes the connection with 1009.
/// Pings are answered; a refused handshake fails with its status and body.
public struct NIOWebSocketConnector: WebSocketTransport {
    /// Makes the TLS handler of a `wss` connection to a host, on the connection's event loop.
    public typealias TLSHandlerMaker = @Sendable (_ host: String) throws -> any ChannelHandler

    private let group: any EventLoopGroup
    private let makeTLSHandler: TLSHandlerMaker?
    /// How long a close handshake waits for the server's answer before the connection is dropped.
    public var closeTimeout: TimeAmount = .seconds(10)

    /// A connector.
    /// - Parameters:
    ///   - group: The event loops the connections run on.
    ///   - makeTLSHandler: Makes the TLS handler of a `wss` connection; nil: `wss` URLs fail with a
    ///     `NetworkError` that says so.
    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, makeTLSHandler: TLSHandlerMaker?
    ) {
        self.group = group
        self.makeTLSHandler = makeTLSHandler
    }

    /// Opens a connection (see ``WebSocketTransport/connect(_:subprotocols:maximumMessageSize:)``).
    /// - Parameters:
    ///   - request: The final handshake request.
    ///   - subprotocols: The subprotocols offered (already in the request's headers).
    ///   - maximumMessageSize: The largest message accepted.
    /// - Returns: The open connection.
    /// - Throws: `NetworkError`.
    public func connect(_ request: URLRequest, subprotocols: [String], maximumMessageSize: Int) async throws
        -> any WebSocketConnection
    {
        guard let url = request.url, let host = url.host else {
            throw NetworkError(.invalidURL, failureReason: "The WebSocket request has no URL with a host.")
        }
        let secure = url.scheme?.lowercased() == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        if secure, makeTLSHandler == nil {
            throw NetworkError(
                .invalidURL,
                failureReason: "This WebSocket connector has no TLS: use NIOWebSocketTransport for wss URLs.",
                request: request)
        }
        let makeTLSHandler = secure ? self.makeTLSHandler : nil
        let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : 60
        let handshake = HandshakeState(request: request, eventLoop: group.next())
        let closeTimeout = self.closeTimeout
        let bootstrap = ClientBootstrap(group: handshake.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.autoRead, value: false)
            .channelOption(.allowRemoteHalfClosure, value: true)  // see EndOfInputGate
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let makeTLSHandler { try pipeline.addHandler(try makeTLSHandler(host)) }
                    let gate = EndOfInputGate()
                    try pipeline.addHandler(gate)
                    let loopBoundGate = NIOLoopBound(gate, eventLoop: channel.eventLoop)
                    let collector = RefusalCollector(handshake: handshake)
                    let upgrader = NIOWebSocketClientUpgrader(
                        maxFrameSize: max(min(maximumMessageSize, Int(UInt32.max)), 1),
                        automaticErrorHandling: true
                    ) { channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            let handler = ConnectionHandler(
                                subprotocol: response.headers.first(name: "Sec-WebSocket-Protocol"),
                                closeTimeout: closeTimeout)
                            try channel.pipeline.syncOperations.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: Int.max,
                                    maxAccumulatedFrameSize: max(maximumMessageSize, 1)))
                            try channel.pipeline.syncOperations.addHandler(handler)
                            handshake.succeed(NIOWebSocketConnection(channel: channel, handler: handler))
                            // NIO hands the bytes read past the `101` to the new handlers once this
                            // returns, in this tick: the end of input, if it came, goes after them.
                            channel.eventLoop.execute { loopBoundGate.value.release() }
                        }
                    }
                    try pipeline.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (
                            upgraders: [GatedWebSocketUpgrader(upgrader: upgrader, gate: gate)],
                            completionHandler: {
                                [collector = NIOLoopBound(collector, eventLoop: channel.eventLoop)] context in
                                context.pipeline.syncOperations.removeHandler(collector.value, promise: nil)
                            }
                        ))
                    try pipeline.addHandler(collector)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            let failure = NetworkError(
                .transport, failureReason: "Could not connect to \(host):\(port): \(error)",
                underlyingError: URLError(.cannotConnectToHost), request: request)
            handshake.fail(failure)
            throw failure
        }
        handshake.start(on: channel, timeout: timeout)
        return try await withTaskCancellationHandler {
            try await handshake.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

/// The handshake of one connection: the request to send, and its outcome.
final class HandshakeState: Sendable {
    let request: URLRequest
    let eventLoop: any EventLoop
    let result: EventLoopPromise<any WebSocketConnection>

    init(request: URLRequest, eventLoop: any EventLoop) {
        self.request = request
        self.eventLoop = eventLoop
        self.result = eventLoop.makePromise()
    }

    var futureResult: EventLoopFuture<any WebSocketConnection> { result.futureResult }

    func succeed(_ connection: any WebSocketConnection) { result.succeed(connection) }
    func fail(_ error: NetworkError) { result.fail(error) }

    /// Sends the handshake's request head and reads the answer; fails it after `timeout` seconds.
    func start(on channel: any Channel, timeout: TimeInterval) {
        let url = request.url
        var target = url.map { $0.path.isEmpty ? "/" : $0.path } ?? "/"
        if let query = url?.query { target += "?" + query }
        var headers = NIOHTTP1.HTTPHeaders()
        let host = url?.host ?? ""
        headers.add(name: "Host", value: url?.port.map { "\(host):\($0)" } ?? host)
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        channel.read()
        let request = self.request
        let timer = eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) { [self] in
            fail(
                NetworkError(
                    .transport, failureReason: "The WebSocket handshake timed out.",
                    underlyingError: URLError(.timedOut), request: request))
            channel.close(promise: nil)
        }
        futureResult.whenComplete { _ in timer.cancel() }
        channel.closeFuture.whenComplete { [self] _ in
            fail(
                NetworkError(
                    .transport, failureReason: "The connection closed during the WebSocket handshake.",
                    underlyingError: URLError(.networkConnectionLost), request: request))
        }
    }
}

/// Reads the answer to a handshake the server refused (any status but a valid `101`): its head
/// and body, then fails the handshake with them. Also keeps reading while the handshake runs
/// (auto-read is off).
final class RefusalCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let handshake: HandshakeState
    private var head: HTTPResponseHead?
    private var body = Data()
    private var error: (any Error)?

    init(handshake: HandshakeState) {
        self.handshake = handshake
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body(var buffer):
            if body.count < 1 << 20, let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body.append(contentsOf: bytes)
            }
        case .end:
            refuse(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refusal reports an upgrade error first, then its response: wait for the response.
        if error is NIOHTTPClientUpgradeError { return }
        self.error = error
        handshake.fail(
            NetworkError(
                .transport, failureReason: "The WebSocket handshake failed: \(error)",
                underlyingError: URLError(.badServerResponse), request: handshake.request))
        context.close(promise: nil)
    }

    private func refuse(context: ChannelHandlerContext) {
        let status = Int(head?.status.code ?? 0)
        var fields: [String: String] = [:]
        for (name, value) in head?.headers ?? [:] { fields[name] = value }
        let response = handshake.request.url.flatMap {
            HTTPURLResponse(url: $0, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
        }
        handshake.fail(
            NetworkError(
                .webSocket,
                failureReason: "The server refused the WebSocket handshake with status \(status).",
                details: .init(reason: .webSocketHandshakeRefused), request: handshake.request,
                response: response, data: body))
        context.close(promise: nil)
    }
}
