import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

import struct Foundation.Date

/// Faults for clients to survive:
/// - `/fault/reset`, `/fault/close`, `/fault/garbage`: a reset, a close without a response, and
///   bytes that are not HTTP.
/// - `/fault/no-reason-phrase`: `HTTP/1.1 200` with no reason phrase (valid HTTP: RFC 9112 §4
///   lets the phrase be empty, but corelibs URLSession cannot parse the line), a 2-byte body `ok`,
///   then a close.
/// - `/fault/burst?key=K&failures=N&status=503`: answers `status` to the first N requests of key K,
///   then 200 `{"key":K,"attempt":n}`.
/// - `/fault/retry-after?key=K&failures=N&after=S&date=1`: answers 429 with `Retry-After: S`
///   (seconds, or an HTTP date S seconds ahead with `date=1`) to the first N requests of key K,
///   then 200.
/// - `/fault/count?key=K`: `{"key":K,"requests":n}` for either of the counted faults.
enum FaultRoutes {
    static let counters = NIOLockedValueBox([String: Int]())

    /// Counts a request for `key` and returns its number (from 1).
    static func count(_ key: String) -> Int {
        counters.withLockedValue { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    static let routes: [Route] = [
        Route(nil, .exact("/fault/reset")) { _, _ in .fault(.reset) },
        Route(nil, .exact("/fault/close")) { _, _ in .fault(.close) },
        Route(nil, .exact("/fault/garbage")) { _, _ in .fault(.garbage) },
        Route(nil, .exact("/fault/no-reason-phrase")) { _, _ in
            .fault(.raw("HTTP/1.1 200\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
        },
        Route([.GET, .PUT, .DELETE], .exact("/fault/burst")) { request in
            let key = request.queryValue("key") ?? "default"
            let failures = Int(request.queryValue("failures") ?? "2") ?? 2
            let status = Int(request.queryValue("status") ?? "503") ?? 503
            let attempt = count(key)
            guard attempt > failures else {
                return .json(
                    ["error": "burst", "attempt": .int(attempt)],
                    status: HTTPResponseStatus(statusCode: status))
            }
            return .json(["key": .string(key), "attempt": .int(attempt)])
        },
        Route([.GET], .exact("/fault/retry-after")) { request in
            let key = request.queryValue("key") ?? "default"
            let failures = Int(request.queryValue("failures") ?? "1") ?? 1
            let seconds = Int(request.queryValue("after") ?? "1") ?? 1
            let attempt = count(key)
            guard attempt > failures else {
                var response = DemoResponse.json(["error": "slow down"], status: .tooManyRequests)
                let value =
                    request.queryValue("date") == "1"
                    ? FileRoutes.httpDate(Date().addingTimeInterval(Double(seconds))) : String(seconds)
                response.headers.replaceOrAdd(name: "Retry-After", value: value)
                return response
            }
            return .json(["key": .string(key), "attempt": .int(attempt)])
        },
        Route([.GET], .exact("/fault/count")) { request in
            let key = request.queryValue("key") ?? "default"
            let requests = counters.withLockedValue { $0[key, default: 0] }
            return .json(["key": .string(key), "requests": .int(requests)])
        },
    ]
}
