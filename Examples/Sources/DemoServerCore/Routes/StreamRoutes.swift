import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Streams for Formwork's `stream(_:)`: server-sent events and JSON lines.
///
/// - `GET /sse?key=K&count=N&total=T&retry=MS&end=clean|drop|open&rate=R&realm=R&type=T&size=B`:
///   a `text/event-stream` of events `id: <n>` / `data: event <n>` (n zero-padded to 8 digits),
///   starting after the request's `Last-Event-ID` (else at 1). Each connection sends `count`
///   events (default 3), first a `retry: MS` line when asked, then ends cleanly (`clean`), sends
///   half of the next event (its `id:` included) and drops the connection (`drop`), or keeps
///   sending until the client leaves (`open`). `rate` paces events per second (in slices of 50 ms,
///   or one event per slice with `paced=1`). When the next id
///   would pass `total`, it answers 204 (stop). `realm` requires the `/auth` realm's current
///   token; `type` replaces the content type; `size` pads each event's data to B bytes of event
///   (`event <n> xxx…`). Without `rate`, events go as fast as the client reads them.
/// - `GET /sse/stats?key=K`: `{"connections":n,"closedByClient":m,"lastEventIDs":[...]}` (the
///   `Last-Event-ID` of each connection, `""` when none).
/// - `GET /sse/closed?key=K&count=N&timeout=S`: answers once the client closed `count` (default
///   1) connections of key K early, or after S seconds (default 5): `{"closedByClient":m}`.
/// - `GET /ndjson?count=N&bad=L&final=0&drop=1&crlf=1&rate=R`: `count` lines `{"n":i}` (default
///   5); line L is not JSON; `final=0` leaves the last line without its newline; `drop=1` drops
///   the connection after the lines; `crlf=1` ends lines with CR LF.
enum StreamRoutes {
    struct Key: Sendable {
        var connections = 0
        var closedByClient = 0
        var lastEventIDs: [String] = []
        var waiters: [(count: Int, promise: EventLoopPromise<DemoResponse>)] = []
    }

    static let keys = NIOLockedValueBox([String: Key]())

    /// The bytes of event `n`: always `size` long (at least `eventSize`): past `eventSize`, its
    /// data goes on with a space and as many `x` as it takes.
    static func event(_ n: Int, size: Int = eventSize) -> [UInt8] {
        let digits = String(n)
        let padded = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        let padding = size > eventSize ? " " + String(repeating: "x", count: size - eventSize - 1) : ""
        return Array("id: \(padded)\ndata: event \(padded)\(padding)\n\n".utf8)
    }

    /// The size of an event without padding.
    static let eventSize = Array("id: 00000001\ndata: event 00000001\n\n".utf8).count

    static let routes: [Route] = [
        Route([.GET], .exact("/sse")) { request, context in .respond(eventStream(request, context)) },
        Route([.GET], .exact("/sse/stats")) { request in
            let key = keys.withLockedValue { $0[request.queryValue("key") ?? "", default: Key()] }
            return .json([
                "connections": .int(key.connections), "closedByClient": .int(key.closedByClient),
                "lastEventIDs": .array(key.lastEventIDs.map { .string($0) }),
            ])
        },
        Route([.GET], .exact("/sse/closed")) { request, context in
            let name = request.queryValue("key") ?? ""
            let count = Int(request.queryValue("count") ?? "1") ?? 1
            let timeout = Int64(request.queryValue("timeout") ?? "5") ?? 5
            let promise = context.eventLoop.makePromise(of: DemoResponse.self)
            let closed = keys.withLockedValue { keys -> Int? in
                let closed = keys[name, default: Key()].closedByClient
                if closed >= count { return closed }
                keys[name, default: Key()].waiters.append((count, promise))
                return nil
            }
            if let closed {
                promise.succeed(.json(["closedByClient": .int(closed)]))
                return .deferred(promise.futureResult)
            }
            context.eventLoop.scheduleTask(in: .seconds(timeout)) {
                // Answer once: only if the close did not answer first.
                let closed = keys.withLockedValue { keys -> Int? in
                    var key = keys[name, default: Key()]
                    guard
                        let index = key.waiters.firstIndex(where: {
                            $0.promise.futureResult === promise.futureResult
                        })
                    else { return nil }
                    key.waiters.remove(at: index)
                    keys[name] = key
                    return key.closedByClient
                }
                if let closed { promise.succeed(.json(["closedByClient": .int(closed)])) }
            }
            return .deferred(promise.futureResult)
        },
        Route([.GET], .exact("/ndjson")) { request in ndjson(request) },
    ]

    private static func eventStream(_ request: DemoRequest, _ context: RouteContext) -> DemoResponse {
        let name = request.queryValue("key") ?? ""
        let lastID = request.headers.first(name: "Last-Event-ID")
        keys.withLockedValue { keys in
            keys[name, default: Key()].connections += 1
            keys[name, default: Key()].lastEventIDs.append(lastID ?? "")
        }
        if let realm = request.queryValue("realm") {
            let presented = request.headers.first(name: "Authorization") ?? ""
            let generation = AuthRoutes.realms.withLockedValue { $0[realm, default: .init()].generation }
            guard presented == "Bearer \(realm)-\(generation)" else {
                return .json(["code": "401", "message": "Token expired"], status: .unauthorized)
            }
            // The token expires with this connection: the next one must refresh it.
            if request.queryValue("rotate") == "1" {
                AuthRoutes.realms.withLockedValue { $0[realm, default: .init()].generation += 1 }
            }
        }
        let first = (lastID.flatMap { Int($0) } ?? 0) + 1
        let count = Int(request.queryValue("count") ?? "3") ?? 3
        if let total = request.queryValue("total").flatMap({ Int($0) }), first > total {
            return .empty(status: .noContent)
        }
        let end = request.queryValue("end") ?? "clean"
        let prefix = request.queryValue("retry").map { Array("retry: \($0)\n\n".utf8) } ?? []
        // `size=N` pads each event to N bytes (its data), for streams of large events.
        let eventBytes = max(eventSize, min(Int(request.queryValue("size") ?? "") ?? eventSize, 1 << 20))
        let size = Int64(eventBytes)
        let bytesToSend: Int64 =
            switch end {
            case "open": Int64.max / 2
            case "drop": Int64(prefix.count) + Int64(count) * size + size / 2
            default: Int64(prefix.count) + Int64(count) * size
            }
        let rate = request.queryValue("rate").flatMap { Int64($0) }
        var stream = StreamedBody(
            contentLength: nil, bytesToSend: bytesToSend, closesEarly: end == "drop",
            bytesPerSecond: rate.map { max(1, $0 * size) },
            fill: { buffer, offset in
                var index = 0
                var current: (number: Int, bytes: [UInt8]) = (0, [])
                while index < buffer.count {
                    let position = offset + Int64(index)
                    if position < Int64(prefix.count) {
                        buffer[index] = prefix[Int(position)]
                    } else {
                        let body = position - Int64(prefix.count)
                        let number = first + Int(body / size)
                        if current.number != number { current = (number, event(number, size: eventBytes)) }
                        buffer[index] = current.bytes[Int(body % size)]
                    }
                    index += 1
                }
            },
            onSent: { _ in },
            onClientClose: { clientClosed(name) })
        if request.queryValue("paced") == "1", let rate { stream.slicesPerSecond = max(1, rate) }
        let type = request.queryValue("type") ?? "text/event-stream"
        return DemoResponse(
            status: .ok, headers: ["Content-Type": type, "Cache-Control": "no-store"], stream: stream)
    }

    private static func clientClosed(_ name: String) {
        let ready = keys.withLockedValue { keys -> [EventLoopPromise<DemoResponse>] in
            var key = keys[name, default: Key()]
            key.closedByClient += 1
            let ready = key.waiters.filter { $0.count <= key.closedByClient }.map(\.promise)
            key.waiters.removeAll { $0.count <= key.closedByClient }
            keys[name] = key
            return ready
        }
        for promise in ready {
            promise.succeed(
                .json(["closedByClient": .int(keys.withLockedValue { $0[name]?.closedByClient ?? 0 })]))
        }
    }

    private static func ndjson(_ request: DemoRequest) -> DemoResponse {
        let count = Int(request.queryValue("count") ?? "5") ?? 5
        let bad = request.queryValue("bad").flatMap { Int($0) }
        let newline = request.queryValue("crlf") == "1" ? "\r\n" : "\n"
        var text = ""
        for n in 1...max(count, 1) {
            text += n == bad ? "{\"n\": oops}" : "{\"n\":\(n)}"
            if n < count || request.queryValue("final") != "0" { text += newline }
        }
        let bytes = Array(text.utf8)
        let drop = request.queryValue("drop") == "1"
        let rate = request.queryValue("rate").flatMap { Int64($0) }
        let stream = StreamedBody(
            contentLength: nil, bytesToSend: Int64(bytes.count), closesEarly: drop,
            bytesPerSecond: rate.map { max(1, $0 * Int64(bytes.count / max(count, 1))) },
            fill: { buffer, offset in
                for index in 0..<buffer.count { buffer[index] = bytes[Int(offset) + index] }
            },
            onSent: { _ in })
        return DemoResponse(status: .ok, headers: ["Content-Type": "application/x-ndjson"], stream: stream)
    }
}
