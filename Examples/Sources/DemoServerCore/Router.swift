import NIOCore
import NIOHTTP1

/// What a route hands back to the connection handler.
enum RouteOutcome {
    /// A response ready to write.
    case respond(DemoResponse)
    /// A response that arrives later (e.g. after a delay); the future may complete on any loop.
    case deferred(EventLoopFuture<DemoResponse>)
    /// No HTTP response at all: a socket-level fault for clients to survive.
    case fault(SocketFault)
}

/// Ways a connection can go wrong below HTTP.
enum SocketFault: Sendable {
    /// Reset the connection (RST) without answering.
    case reset
    /// Close the connection without answering.
    case close
    /// Answer with bytes that are not HTTP, then close.
    case garbage
    /// Answer with these raw bytes (e.g. a response head a strict parser rejects), then close.
    case raw(String)
}

/// What a route may use besides the request.
struct RouteContext {
    /// The connection's event loop, for timers.
    let eventLoop: any EventLoop
    let stats: ServerStats
    /// Completes when the connection closes (e.g. the client gave up on a held response).
    var closeFuture: EventLoopFuture<Void>? = nil
}

/// One endpoint: which methods and paths it answers, and how.
struct Route: Sendable {
    enum PathMatch: Sendable {
        /// The path equals this string.
        case exact(String)
        /// The path equals `base` or starts with `base + "/"`.
        case subtree(String)
        /// The path starts with this string (the rest is a parameter, e.g. `/status/`).
        case prefix(String)

        func matches(_ path: Substring) -> Bool {
            switch self {
            case .exact(let value): path == value
            case .subtree(let base): path == base || path.hasPrefix(base + "/")
            case .prefix(let value): path.hasPrefix(value)
            }
        }
    }

    /// nil answers every method; a route that allows GET also answers HEAD.
    let methods: [HTTPMethod]?
    let path: PathMatch
    let handler: @Sendable (DemoRequest, RouteContext) -> RouteOutcome

    init(
        _ methods: [HTTPMethod]?,
        _ path: PathMatch,
        handler: @escaping @Sendable (DemoRequest, RouteContext) -> RouteOutcome
    ) {
        self.methods = methods
        self.path = path
        self.handler = handler
    }

    /// A route whose handler answers at once.
    init(
        _ methods: [HTTPMethod]?,
        _ path: PathMatch,
        respond: @escaping @Sendable (DemoRequest) -> DemoResponse
    ) {
        self.init(methods, path) { request, _ in .respond(respond(request)) }
    }

    func allows(_ method: HTTPMethod) -> Bool {
        guard let methods else { return true }
        return methods.contains(method) || (method == .HEAD && methods.contains(.GET))
    }
}

/// Finds the route for a request: 404 JSON for an unknown path, 405 for a known path and wrong method.
struct Router: Sendable {
    let routes: [Route]

    /// Every endpoint of the demo server.
    static let demo = Router(
        routes: DataRoutes.routes + ErrorRoutes.routes + EchoRoutes.routes + MiscRoutes.routes
            + RedirectRoutes.routes + AuthRoutes.routes + FileRoutes.routes + UploadRoutes.routes
            + FaultRoutes.routes
            + RecoveryRoutes.routes + WebSocketRoutes.routes
            + QuirkyFileRoutes.routes
            + SecurityRoutes.routes
            + IdempotencyRoutes.routes
            + StreamRoutes.routes
            + CoalescingRoutes.routes
            + CacheRoutes.routes
            + CookieRoutes.routes
            + StaticFileRoutes.routes
    )

    func route(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let path = request.path
        let candidates = routes.filter { $0.path.matches(path) }
        if let route = candidates.first(where: { $0.allows(request.method) }) {
            return route.handler(request, context)
        }
        if candidates.isEmpty {
            return .respond(.json(["error": "not found", "path": .string(String(path))], status: .notFound))
        }
        var response = DemoResponse.json(
            [
                "error": "method not allowed", "method": .string(request.method.rawValue),
                "path": .string(String(path)),
            ],
            status: .methodNotAllowed
        )
        let allowed = candidates.flatMap { $0.methods ?? [] }.map(\.rawValue)
        response.headers.add(
            name: "Allow",
            value: (allowed + (allowed.contains("GET") ? ["HEAD"] : [])).joined(separator: ", "))
        return .respond(response)
    }
}
