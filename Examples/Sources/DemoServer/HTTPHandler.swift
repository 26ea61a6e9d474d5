import NIOCore
import NIOHTTP1

/// Serves one connection: collects each request (head + whole body), routes it, writes the response
/// with a correct `Content-Length`, and keeps the connection open when the client asks for it.
/// Sits behind NIO's server pipeline handler, so requests arrive one at a time even when pipelined.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: Router
    private let stats: ServerStats

    /// The request being received, if any.
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?

    init(router: Router, stats: ServerStats) {
        self.router = router
        self.stats = stats
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = nil
            if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                let interim = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
            }
        case .body(var chunk):
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let bytes = body.map { Array($0.readableBytesView) } ?? []
            body = nil
            let request = DemoRequest(
                method: head.method,
                uri: head.uri,
                version: head.version,
                headers: head.headers,
                body: bytes,
                keepAlive: head.isKeepAlive
            )
            handle(request, context: context)
        }
    }

    private func handle(_ request: DemoRequest, context: ChannelHandlerContext) {
        stats.recordRequest(path: request.path)
        let routeContext = RouteContext(eventLoop: context.eventLoop, stats: stats)
        switch router.route(request, context: routeContext) {
        case .respond(let response):
            write(response, to: request, context: context)
        case .deferred(let future):
            future.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
                let response =
                    (try? result.get()) ?? .json(["error": "internal error"], status: .internalServerError)
                self.write(response, to: request, context: context)
            }
        }
    }

    private func write(_ response: DemoResponse, to request: DemoRequest, context: ChannelHandlerContext) {
        let keepAlive = request.keepAlive
        var headers = response.headers
        if response.status.mayHaveResponseBody {
            // For HEAD this is the length a GET would have had; NIO's encoder sends no body for HEAD.
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body?.count ?? 0))
        }
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: request.version, status: response.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = response.body, !body.isEmpty, request.method != .HEAD,
            response.status.mayHaveResponseBody
        {
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Resets, bad requests (already answered with 400 by NIO's error handler) and the like:
        // drop the connection, never the server.
        context.close(promise: nil)
    }
}
