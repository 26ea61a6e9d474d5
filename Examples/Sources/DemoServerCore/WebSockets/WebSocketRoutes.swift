import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The WebSocket endpoints, under `/ws/` (a `GET` with `Upgrade: websocket`):
/// - `/ws/echo`: sends every message back as it came (text or binary, up to 32 MiB); answers
///   pings; answers a close frame with the same code and reason.
/// - `/ws/push?count=N&rate=R&size=S`: sends `N` text messages (`"0"`, `"1"`, ... padded with `.`
///   to `S` bytes when `size` is given) at `R` a second (`rate=0`, the default: as fast as the
///   socket drains), then closes with 1000 `"done"` (`close=0`: stays open).
/// - `/ws/fragmented?parts=N`: sends one text message of `N` frames (`"part0 part1 ..."`).
/// - `/ws/big?size=N`: sends one binary message of `N` bytes (byte `i` is `i % 251`).
/// - `/ws/close?code=C&reason=T`: closes with code `C` and reason `T` at once.
/// - `/ws/drop?after=N`: sends `N` text messages, then drops the connection (no close frame).
/// - `/ws/silent`: accepts, then never answers a ping (or anything else).
/// - `/ws/refuse?status=S`: refuses the handshake with status `S` and a JSON body.
/// - `/ws/auth?realm=R&dropFirst=1`: accepts only `Authorization: Bearer R-<generation>` (the
///   realm of `/auth/protected`), else refuses with 401; once open it sends the token it was given
///   as text. With `dropFirst=1`, the realm's first connection then expires the token (the realm
///   moves to the next generation) and drops the connection.
/// - `/ws/stats?path=P`: `{"connections":N}` for `/ws/P`, as HTTP.
enum WebSocketRoutes {
    /// The behaviour of one accepted socket.
    enum Behaviour {
        case echo
        case push(count: Int, rate: Double, size: Int, closes: Bool)
        case fragmented(parts: Int)
        case big(size: Int)
        case close(code: Int, reason: String)
        case drop(after: Int)
        case silent
        case auth(token: String, drop: Bool, realm: String)
    }

    /// Connections accepted per endpoint (`/ws/stats`).
    static let connections = NIOLockedValueBox([String: Int]())
    /// Realms whose first connection happened (`dropFirst`).
    static let realmsSeen = NIOLockedValueBox(Set<String>())

    /// The behaviour for a handshake, or `nil` to refuse it (the request then goes on to the HTTP
    /// routes, which answer `/ws/refuse` and `/ws/auth` with their status).
    static func behaviour(for head: HTTPRequestHead) -> Behaviour? {
        let request = HTTPHandler.request(head, body: [])
        let path = request.path
        func int(_ name: String, _ fallback: Int) -> Int {
            request.queryValue(name).flatMap { Int($0) } ?? fallback
        }
        let behaviour: Behaviour?
        switch path {
        case "/ws/echo": behaviour = .echo
        case "/ws/push":
            behaviour = .push(
                count: int("count", 10), rate: request.queryValue("rate").flatMap { Double($0) } ?? 0,
                size: int("size", 0), closes: request.queryValue("close") != "0")
        case "/ws/fragmented": behaviour = .fragmented(parts: max(int("parts", 3), 1))
        case "/ws/big": behaviour = .big(size: max(int("size", 1024), 0))
        case "/ws/close":
            behaviour = .close(code: int("code", 1000), reason: request.queryValue("reason") ?? "")
        case "/ws/drop": behaviour = .drop(after: int("after", 0))
        case "/ws/silent": behaviour = .silent
        case "/ws/auth":
            let realm = request.queryValue("realm") ?? "default"
            let presented = request.headers.first(name: "Authorization") ?? ""
            let generation = AuthRoutes.realms.withLockedValue {
                $0[realm, default: AuthRoutes.Realm()].generation
            }
            guard presented == "Bearer \(realm)-\(generation)" else { return nil }
            let first = realmsSeen.withLockedValue { $0.insert(realm).inserted }
            let drop = first && request.queryValue("dropFirst") == "1"
            behaviour = .auth(token: "\(realm)-\(generation)", drop: drop, realm: realm)
        default: behaviour = nil
        }
        if behaviour != nil { connections.withLockedValue { $0[String(path), default: 0] += 1 } }
        return behaviour
    }

    /// The HTTP answers of the endpoints when not upgraded.
    static let routes: [Route] = [
        Route([.GET], .exact("/ws/refuse")) { request in
            let status = request.queryValue("status").flatMap { Int($0) } ?? 403
            return .json(
                ["code": .string(String(status)), "message": "WebSocket refused"],
                status: HTTPResponseStatus(statusCode: status))
        },
        Route([.GET], .exact("/ws/auth")) { _ in
            .json(["code": "401", "message": "Token expired"], status: .unauthorized)
        },
        Route([.GET], .exact("/ws/stats")) { request in
            let path = "/ws/" + (request.queryValue("path") ?? "")
            return .json(["connections": .int(connections.withLockedValue { $0[path] ?? 0 })])
        },
    ]

    /// The upgrader for the server's pipeline.
    static func upgrader() -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 25,
            shouldUpgrade: { channel, head in
                guard head.uri.hasPrefix("/ws/"), accepts(head) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                // The first subprotocol offered is the one chosen.
                if let offered = head.headers.first(name: "Sec-WebSocket-Protocol")?.split(separator: ",")
                    .first
                {
                    headers.add(name: "Sec-WebSocket-Protocol", value: String(offered.filter { $0 != " " }))
                }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                guard let behaviour = behaviour(for: head) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                            maxAccumulatedFrameSize: 1 << 25))
                    try channel.pipeline.syncOperations.addHandler(WebSocketServerHandler(behaviour))
                }
            })
    }

    /// Whether a handshake would be accepted, without counting it (the upgrade counts it).
    static func accepts(_ head: HTTPRequestHead) -> Bool {
        let request = HTTPHandler.request(head, body: [])
        switch request.path {
        case "/ws/refuse", "/ws/stats": return false
        case "/ws/auth":
            let realm = request.queryValue("realm") ?? "default"
            let presented = request.headers.first(name: "Authorization") ?? ""
            let generation = AuthRoutes.realms.withLockedValue {
                $0[realm, default: AuthRoutes.Realm()].generation
            }
            return presented == "Bearer \(realm)-\(generation)"
        default: return true
        }
    }
}

/// Turns a WebSocket handshake the demo refuses (`/ws/refuse`, `/ws/auth` with a stale token,
/// `/ws/stats`) into a plain request before the upgrade handler sees it, so that the HTTP routes
/// answer it with their status and body (NIO's upgrade handler does not pass on a handshake its
/// upgrader declines).
final class WebSocketRefusals: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Whether the request being passed on is a handshake the upgrade handler will accept: after
    /// its end this handler leaves, before the WebSocket's bytes arrive.
    private var upgrading = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            guard head.uri.hasPrefix("/ws/"), head.headers.contains(name: "Upgrade") else { break }
            if WebSocketRoutes.accepts(head) {
                upgrading = true
                break
            }
            head.headers.remove(name: "Upgrade")
            head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        case .end:
            if upgrading {
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        case .body:
            break
        }
        context.fireChannelRead(data)
    }
}
