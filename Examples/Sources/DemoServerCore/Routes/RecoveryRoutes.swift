import NIOConcurrencyHelpers
import NIOHTTP1

/// Endpoints for re-request (reload) tests: `/flaky` fails at the transport level until its key
/// recovers, `/flaky/recover` recovers a key.
enum RecoveryRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/flaky"), respond: flaky),
        Route([.GET], .exact("/flaky/recover"), respond: recover),
    ]

    /// What the server knows about one `/flaky` key.
    private struct Key {
        /// Requests seen for the key.
        var requests = 0
        /// Whether `/flaky/recover` was called for it.
        var recovered = false
    }

    private static let keys = NIOLockedValueBox<[String: Key]>([:])

    /// `GET /flaky?key=K[&failures=N]`: while key K is down, the connection is closed without any
    /// response (a transport failure for the client). A key is down until `/flaky/recover?key=K`,
    /// or, with `failures=N`, for its first N requests. Once up: `200
    /// {"data":{"attempt":n,"code":"200","key":K,"message":"OK"}}`, n counting every request for K.
    ///
    /// Prefer `/flaky/recover` in tests: an HTTP client may resend a request by itself when a
    /// reused keep-alive connection closes without a response (libcurl does), which uses up two
    /// of N failures in one client attempt.
    static func flaky(_ request: DemoRequest) -> DemoResponse {
        guard let key = request.queryValue("key"), !key.isEmpty else {
            return .badRequest("Missing key")
        }
        var failures = Int.max
        if let text = request.queryValue("failures") {
            guard let value = Int(text), value >= 0 else { return .badRequest("Invalid failures") }
            failures = value
        }
        let state = keys.withLockedValue { keys in
            keys[key, default: Key()].requests += 1
            return keys[key, default: Key()]
        }
        guard state.recovered || state.requests > failures else { return dropConnection }
        return .json([
            "data": ["code": "200", "message": "OK", "key": .string(key), "attempt": .int(state.requests)]
        ])
    }

    /// `GET /flaky/recover?key=K`: brings key K up; answers `{"key":K,"requests":n}` with the
    /// number of `/flaky` requests seen for K so far.
    static func recover(_ request: DemoRequest) -> DemoResponse {
        guard let key = request.queryValue("key"), !key.isEmpty else {
            return .badRequest("Missing key")
        }
        let requests = keys.withLockedValue { keys in
            keys[key, default: Key()].recovered = true
            return keys[key, default: Key()].requests
        }
        return .json(["key": .string(key), "requests": .int(requests)])
    }

    /// A response that is never sent: NIO's outbound header validator refuses a header value
    /// holding CR LF, writes nothing and reports an error, and `HTTPHandler.errorCaught` closes
    /// the connection. The client sees the connection close with no response at all.
    static let dropConnection = DemoResponse(
        status: .ok, headers: ["X-Drop-Connection": "refused\r\n"], body: [])
}
