import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Binds the HTTP server and builds each connection's pipeline.
enum Server {
    /// Binds to `host:port` (port 0: the OS chooses) and returns the listening channel. With `tls`,
    /// every connection speaks TLS first (HTTPS).
    static func start(
        host: String, port: Int, router: Router, stats: ServerStats, tls: TLSSupport.ConnectionSetup? = nil
    ) async throws -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            // Streamed bodies wait for the socket once 1 MiB is queued, and resume below 256 KiB.
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try tls?(pipeline)
                    // sendfile bypasses the TLS handler: under TLS, file bodies are read and written.
                    let handler = HTTPHandler(router: router, stats: stats, sendsFileRegions: tls == nil)
                    // `/ws/...` handshakes are upgraded to WebSockets (see `WebSocketRoutes`); the
                    // HTTP handler then leaves the pipeline.
                    try pipeline.configureHTTPServerPipeline(
                        withPipeliningAssistance: true,
                        withServerUpgrade: (
                            upgraders: [WebSocketRoutes.upgrader()],
                            completionHandler: {
                                [handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)] context in
                                context.pipeline.syncOperations.removeHandler(handler.value, promise: nil)
                            }
                        ),
                        withErrorHandling: true)
                    let upgrade = try pipeline.handler(type: HTTPServerUpgradeHandler.self)
                    try pipeline.addHandler(WebSocketRefusals(), position: .before(upgrade))
                    try pipeline.addHandler(handler)
                }
            }
        return try await bootstrap.bind(host: host, port: port).get()
    }
}
