import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Endpoints that let a test hold requests in flight and count what reached the server, for
/// coalescing. Every counter is per key K, so tests never see each other's requests.
///
/// - `GET|HEAD|POST /coalesce/held?key=K[&size=N][&ms=D]`: counts a hit for K and answers only when K
///   is released (or, with `ms`, after D milliseconds, for the benchmark):
///   `200 {"key":K,"hit":n,"method":M,"padding":"xxx…"}` (N bytes of padding, default 0;
///   `X-Coalesce-Hit: n`). A client that closes the connection while held is counted for K.
/// - `GET /coalesce/release?key=K`: answers every request held for K (and any that arrives later)
///   with `{"released":n}`.
/// - `GET /coalesce/hits?key=K&atLeast=N`: answers `{"hits":h,"closed":c}` once K has had N hits
///   (or after `wait` seconds, default 20: then `h` tells the test what did arrive).
/// - `GET /coalesce/closed?key=K&atLeast=N`: the same, once N held requests of K saw their
///   connection closed by the client.
enum CoalescingRoutes {
    static let routes: [Route] = [
        Route([.GET, .POST], .exact("/coalesce/held"), handler: held),
        Route([.GET], .exact("/coalesce/release"), respond: release),
        Route([.GET], .exact("/coalesce/hits")) { request, context in
            wait(request, context: context, for: .hits)
        },
        Route([.GET], .exact("/coalesce/closed")) { request, context in
            wait(request, context: context, for: .closed)
        },
    ]

    /// What a waiter waits for.
    enum Count: Sendable {
        case hits
        case closed
    }

    private struct Waiter {
        let id: Int
        let count: Count
        let atLeast: Int
        let promise: EventLoopPromise<DemoResponse>
    }

    private struct Counter {
        var hits = 0
        var closed = 0
        var released = false
        /// The requests held, by hit number.
        var held: [Int: EventLoopPromise<DemoResponse>] = [:]
        var waiters: [Waiter] = []
        var nextWaiter = 0

        var report: DemoResponse { .json(["hits": .int(hits), "closed": .int(closed)]) }

        /// Takes the waiters whose count is reached.
        mutating func readyWaiters() -> [Waiter] {
            let (hits, closed) = (hits, closed)
            func reached(_ waiter: Waiter) -> Bool {
                (waiter.count == .hits ? hits : closed) >= waiter.atLeast
            }
            let ready = waiters.filter(reached)
            waiters.removeAll(where: reached)
            return ready
        }
    }

    private static let counters = NIOLockedValueBox([String: Counter]())

    /// Changes K's counter, then answers the waiters it satisfied (outside the lock).
    @discardableResult
    private static func update<Result>(_ key: String, _ change: (inout Counter) -> Result) -> Result {
        let (result, ready, report) = counters.withLockedValue { counters in
            let result = change(&counters[key, default: Counter()])
            let ready = counters[key, default: Counter()].readyWaiters()
            return (result, ready, counters[key, default: Counter()].report)
        }
        for waiter in ready { waiter.promise.succeed(report) }
        return result
    }

    static func held(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        guard let key = request.queryValue("key"), !key.isEmpty else {
            return .respond(.badRequest("Missing key"))
        }
        let size = min(max(Int(request.queryValue("size") ?? "0") ?? 0, 0), 1 << 20)
        let delay = Int64(request.queryValue("ms") ?? "").map { min(max($0, 0), 10_000) }
        // Only a held request gets a promise: NIO traps on one that is never completed.
        let promise = delay == nil ? context.eventLoop.makePromise(of: DemoResponse.self) : nil
        let (hit, released) = update(key) { counter -> (Int, Bool) in
            counter.hits += 1
            if !counter.released, let promise { counter.held[counter.hits] = promise }
            return (counter.hits, counter.released)
        }
        var response = DemoResponse.json([
            "key": .string(key), "hit": .int(hit), "method": .string(request.method.rawValue),
            "padding": .string(String(repeating: "x", count: size)),
        ])
        response.headers.add(name: "X-Coalesce-Hit", value: String(hit))
        let answer = response
        if released {
            promise?.succeed(answer)  // never held: completed so that it does not leak
            return .respond(answer)
        }
        if let delay {
            let later = context.eventLoop.scheduleTask(in: .milliseconds(delay)) { answer }
            return .deferred(later.futureResult)
        }
        // The client gave up before the answer: its connection closed while the request was held.
        context.closeFuture?.whenComplete { _ in
            let dropped = update(key) { counter -> EventLoopPromise<DemoResponse>? in
                let removed = counter.held.removeValue(forKey: hit)
                if removed != nil { counter.closed += 1 }
                return removed
            }
            dropped?.succeed(answer)  // completed (nobody reads it) so that it does not leak
        }
        guard let promise else { return .respond(answer) }
        return .deferred(promise.futureResult.map { _ in answer })
    }

    static func release(_ request: DemoRequest) -> DemoResponse {
        guard let key = request.queryValue("key"), !key.isEmpty else { return .badRequest("Missing key") }
        let held = update(key) { counter in
            counter.released = true
            defer { counter.held = [:] }
            return Array(counter.held.values)
        }
        for promise in held { promise.succeed(.json([:])) }
        return .json(["released": .int(held.count)])
    }

    static func wait(_ request: DemoRequest, context: RouteContext, for count: Count) -> RouteOutcome {
        guard let key = request.queryValue("key"), !key.isEmpty else {
            return .respond(.badRequest("Missing key"))
        }
        let atLeast = Int(request.queryValue("atLeast") ?? "1") ?? 1
        let seconds = min(Int64(request.queryValue("wait") ?? "20") ?? 20, 120)
        let promise = context.eventLoop.makePromise(of: DemoResponse.self)
        let id = update(key) { counter in
            counter.nextWaiter += 1
            counter.waiters.append(
                Waiter(id: counter.nextWaiter, count: count, atLeast: atLeast, promise: promise))
            return counter.nextWaiter
        }
        // Gives up after the wait: the test reads what did arrive.
        context.eventLoop.scheduleTask(in: .seconds(seconds)) {
            let report = counters.withLockedValue { counters -> DemoResponse? in
                guard let index = counters[key]?.waiters.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                counters[key]?.waiters.remove(at: index)
                return counters[key]?.report
            }
            if let report { promise.succeed(report) }
        }
        return .deferred(promise.futureResult)
    }
}
