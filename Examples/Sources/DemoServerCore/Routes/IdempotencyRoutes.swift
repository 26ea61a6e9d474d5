import NIOConcurrencyHelpers
import NIOHTTP1

/// A server that honours `Idempotency-Key` (IETF httpapi draft), for at-most-once tests:
///
/// - `POST|PATCH /idempotency/apply?counter=C[&fail=503|drop|drop-new-key]`: applies an effect (adds one to
///   counter C) and answers `201 {"counter":C,"count":n,"key":K}`. A request whose
///   `Idempotency-Key` was seen before for C is not applied again: it gets the first response
///   back, with `Idempotency-Replayed: true` (or `422` when its body differs from the first).
///   With `fail`, the **first arrival** for C applies the effect and then loses the answer: a
///   `503` (`fail=503`) or a connection closed with no response at all (`fail=drop`). With
///   `fail=drop-new-key`, **every new key** is applied and its connection closed with no response
///   (after the whole request was read), and a key seen before gets the first response back: a
///   server that crashes after each commit, for a client that sends keyed requests one after
///   another on one connection.
/// - `GET /idempotency/count?counter=C`: `{"counter":C,"applied":n,"arrivals":m}`: how many
///   times the effect was applied, and how many requests arrived.
enum IdempotencyRoutes {
    static let routes: [Route] = [
        Route([.POST, .PATCH], .exact("/idempotency/apply"), handler: apply),
        Route([.GET], .exact("/idempotency/count"), respond: count),
    ]

    private struct Counter {
        var applied = 0
        var arrivals = 0
        /// The first request's body and response, by key.
        var responses: [String: (body: [UInt8], response: DemoResponse)] = [:]
    }

    private static let counters = NIOLockedValueBox<[String: Counter]>([:])

    static func apply(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        guard let name = request.queryValue("counter"), !name.isEmpty else {
            return .respond(.badRequest("Missing counter"))
        }
        let fail = request.queryValue("fail")
        guard fail == nil || fail == "503" || fail == "drop" || fail == "drop-new-key" else {
            return .respond(.badRequest("fail must be 503, drop or drop-new-key"))
        }
        let key = request.headers.first(name: "Idempotency-Key")
        let (response, isFirstArrival, isNewKey) = counters.withLockedValue {
            counters -> (DemoResponse, Bool, Bool) in
            var counter = counters[name, default: Counter()]
            defer { counters[name] = counter }
            counter.arrivals += 1
            if let key, let first = counter.responses[key] {
                guard first.body == request.body else {
                    return (
                        .json(
                            ["error": "Idempotency-Key reused for another request"],
                            status: .unprocessableEntity), false, false
                    )
                }
                var replay = first.response
                replay.headers.replaceOrAdd(name: "Idempotency-Replayed", value: "true")
                return (replay, counter.arrivals == 1, false)
            }
            counter.applied += 1
            let response = DemoResponse.json(
                [
                    "counter": .string(name), "count": .int(counter.applied),
                    "key": key.map { .string($0) } ?? .null,
                ],
                status: .created)
            if let key { counter.responses[key] = (request.body, response) }
            return (response, counter.arrivals == 1, key != nil)
        }
        if fail == "drop-new-key" { return isNewKey ? .fault(.close) : .respond(response) }
        guard isFirstArrival, let fail else { return .respond(response) }
        if fail == "drop" { return .fault(.close) }
        return .respond(.json(["error": "applied, but the answer was lost"], status: .serviceUnavailable))
    }

    static func count(_ request: DemoRequest) -> DemoResponse {
        guard let name = request.queryValue("counter"), !name.isEmpty else {
            return .badRequest("Missing counter")
        }
        let counter = counters.withLockedValue { $0[name, default: Counter()] }
        return .json([
            "counter": .string(name), "applied": .int(counter.applied), "arrivals": .int(counter.arrivals),
        ])
    }
}
