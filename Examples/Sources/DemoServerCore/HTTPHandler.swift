import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves one connection: routes each request, writes the response with correct framing, and keeps
/// the connection open when the client asks for it. Sits behind NIO's server pipeline handler,
/// so requests arrive one at a time even when pipelined.
///
/// Request bodies are collected in memory (up to `maxCollectedBodyBytes`, else 413) and the
/// request is routed by `Router` once complete; a request for a `StreamingRoute` (e.g. `/upload`)
/// instead has its body handed to that route's consumer piece by piece as it arrives. Responses
/// with a `StreamedBody` are written in chunks as the socket drains (back-pressure).
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest body collected for an ordinary route; larger ones are drained and get 413.
    static let maxCollectedBodyBytes = 64 * 1024 * 1024

    private enum RequestState {
        case idle
        /// Collecting the body for `Router`; nil body after it grew too large.
        case collecting(HTTPRequestHead, body: ByteBuffer?, tooLarge: Bool)
        /// Handing the body to a streaming route's consumer.
        case consuming(HTTPRequestHead, any RequestBodyConsumer)
    }

    private let router: Router
    private let streamingRoutes: [StreamingRoute]
    private let stats: ServerStats
    /// Whether file bodies go out as `FileRegion`s (`sendfile`); not under TLS, which must read them.
    private let sendsFileRegions: Bool
    private var state = RequestState.idle
    /// The streamed response being written, if any.
    private var bodyWriter: StreamedBodyWriter?

    init(
        router: Router, stats: ServerStats, streamingRoutes: [StreamingRoute] = StreamingRoute.demo,
        sendsFileRegions: Bool = true
    ) {
        self.router = router
        self.stats = stats
        self.sendsFileRegions = sendsFileRegions
        self.streamingRoutes = streamingRoutes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                let interim = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(interim)), promise: nil)
            }
            let request = Self.request(head, body: [])
            if let route = streamingRoutes.first(where: { $0.matches(request) }) {
                let routeContext = RouteContext(eventLoop: context.eventLoop, stats: stats)
                state = .consuming(head, route.makeConsumer(request, routeContext))
            } else {
                state = .collecting(head, body: nil, tooLarge: false)
            }
        case .body(var chunk):
            switch state {
            case .consuming(_, let consumer):
                consumer.consume(chunk)
            case .collecting(let head, var body, let tooLarge):
                guard !tooLarge else { return }
                if (body?.readableBytes ?? 0) + chunk.readableBytes > Self.maxCollectedBodyBytes {
                    state = .collecting(head, body: nil, tooLarge: true)
                    return
                }
                // Release the state's reference first so the buffer can grow in place.
                state = .idle
                if body == nil {
                    body = chunk
                } else {
                    body!.writeBuffer(&chunk)
                }
                state = .collecting(head, body: body, tooLarge: false)
            case .idle:
                break
            }
        case .end:
            let current = state
            state = .idle
            switch current {
            case .consuming(let head, let consumer):
                let request = Self.request(head, body: [])
                stats.recordRequest(path: request.path)
                write(consumer.finish(), to: request, context: context)
            case .collecting(let head, _, tooLarge: true):
                let request = Self.request(head, body: [])
                stats.recordRequest(path: request.path)
                let limit = Self.maxCollectedBodyBytes
                let response = DemoResponse.json(
                    ["error": .string("body larger than \(limit) bytes; use /upload for large bodies")],
                    status: .payloadTooLarge)
                write(response, to: request, context: context)
            case .collecting(let head, let body, tooLarge: false):
                handle(
                    Self.request(head, body: body.map { Array($0.readableBytesView) } ?? []), context: context
                )
            case .idle:
                break
            }
        }
    }

    static func request(_ head: HTTPRequestHead, body: [UInt8]) -> DemoRequest {
        DemoRequest(
            method: head.method, uri: head.uri, version: head.version, headers: head.headers, body: body,
            keepAlive: head.isKeepAlive)
    }

    private func handle(_ request: DemoRequest, context: ChannelHandlerContext) {
        stats.recordRequest(path: request.path)
        let routeContext = RouteContext(
            eventLoop: context.eventLoop, stats: stats, closeFuture: context.channel.closeFuture)
        switch router.route(request, context: routeContext) {
        case .respond(let response):
            write(response, to: request, context: context)
        case .deferred(let future):
            future.hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
                let response =
                    (try? result.get()) ?? .json(["error": "internal error"], status: .internalServerError)
                self.write(response, to: request, context: context)
            }
        case .fault(let fault):
            inject(fault, context: context)
        }
    }

    /// Breaks the connection the way `fault` says, below the HTTP encoder.
    private func inject(_ fault: SocketFault, context: ChannelHandlerContext) {
        switch fault {
        case .close:
            context.close(promise: nil)
        case .reset:
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            guard let socket = context.channel as? any SocketOptionProvider else {
                context.close(promise: nil)
                return
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).hop(to: context.eventLoop).assumeIsolated()
                .whenComplete { _ in context.close(promise: nil) }
        case .garbage:
            writeRaw("\u{16}\u{03}\u{01} this is not HTTP at all \r\n\r\n", context: context)
        case .raw(let text):
            writeRaw(text, context: context)
        }
    }

    /// Writes `text` as it is, below the HTTP encoder, then closes the connection.
    private func writeRaw(_ text: String, context: ChannelHandlerContext) {
        let bytes = context.channel.allocator.buffer(string: text)
        // Written from the encoder's own context, so it goes out as raw bytes.
        guard
            let encoder = try? context.pipeline.syncOperations.context(
                handlerType: HTTPResponseEncoder.self)
        else {
            context.close(promise: nil)
            return
        }
        encoder.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func write(_ response: DemoResponse, to request: DemoRequest, context: ChannelHandlerContext) {
        var keepAlive = request.keepAlive
        var headers = response.headers
        let file = response.file
        // Under TLS a file body is read in chunks, like any streamed body.
        let stream = file.flatMap { sendsFileRegions ? nil : $0.streamed } ?? response.stream
        if let file, response.status.mayHaveResponseBody, stream == nil {
            headers.replaceOrAdd(name: "Content-Length", value: String(file.contentLength))
        } else if response.status.mayHaveResponseBody {
            // For HEAD this is the length a GET would have had; NIO's encoder sends no body for HEAD.
            if let stream {
                if let length = stream.contentLength {
                    headers.replaceOrAdd(name: "Content-Length", value: String(length))
                } else {
                    // NIO frames it chunked; HTTP/1.0 has no chunking, so the end is the close.
                    headers.remove(name: "Content-Length")
                    keepAlive = keepAlive && request.version != .http1_0
                }
            } else {
                headers.replaceOrAdd(name: "Content-Length", value: String(response.body?.count ?? 0))
            }
        }
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: request.version, status: response.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let sendsBody = request.method != .HEAD && response.status.mayHaveResponseBody
        if let file, sendsBody, stream == nil {
            writeFileRegion(file, keepAlive: keepAlive, context: context)
            return
        }
        if let stream, sendsBody {
            let writer = StreamedBodyWriter(body: stream, keepAlive: keepAlive) { [weak self] finished in
                if self?.bodyWriter === finished {
                    self?.bodyWriter = nil
                }
            }
            bodyWriter = writer
            writer.pump(context: context)
            return
        }
        if let body = response.body, !body.isEmpty, sendsBody, stream == nil, file == nil {
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            bodyWriter?.pump(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        bodyWriter?.connectionClosed()
        state = .idle
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Resets, bad requests (already answered with 400 by NIO's error handler) and the like:
        // drop the connection, never the server.
        context.close(promise: nil)
    }
}
