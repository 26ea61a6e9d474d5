import NIOCore
import NIOHTTP1

/// Takes a request body piece by piece as it arrives, instead of the handler collecting it.
/// Used on the connection's event loop only.
protocol RequestBodyConsumer: AnyObject {
    /// The next piece of the body (already de-chunked).
    func consume(_ chunk: ByteBuffer)
    /// The body is complete: the response to send.
    func finish() -> DemoResponse
}

/// An endpoint whose request bodies are streamed to a `RequestBodyConsumer` (e.g. `/upload`),
/// so a 1 GiB body costs no more memory than a small one. It is chosen when the request head
/// arrives; everything else goes through `Router` with its body collected.
struct StreamingRoute: Sendable {
    let methods: [HTTPMethod]
    let path: Route.PathMatch
    /// Makes the consumer for a request (its `body` is empty: the body follows).
    let makeConsumer: @Sendable (DemoRequest, RouteContext) -> any RequestBodyConsumer

    /// Every streaming endpoint of the demo server.
    static let demo: [StreamingRoute] = UploadRoutes.streamingRoutes

    func matches(_ request: DemoRequest) -> Bool {
        methods.contains(request.method) && path.matches(request.path)
    }
}
