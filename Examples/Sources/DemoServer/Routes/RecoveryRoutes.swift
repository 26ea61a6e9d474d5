import NIOConcurrencyHelpers
import NIOHTTP1

/// Endpoints for re-request (reload) tests: `/flaky` fails at the transport level a given number
/// of times per key, then recovers.
enum RecoveryRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/flaky"), respond: flaky)
    ]

    /// How many requests each `/flaky` key has seen.
    private static let counts = NIOLockedValueBox<[String: Int]>([:])

    /// `GET /flaky?key=K&failures=N` (N defaults to 1): the first N requests for key K get their
    /// connection closed without any response (a transport failure for the client); later ones
    /// get `200 {"data":{"attempt":n,"code":"200","key":K,"message":"OK"}}`, n counting every
    /// request for K. Use a fresh key per test.
    static func flaky(_ request: DemoRequest) -> DemoResponse {
        guard let key = request.queryValue("key"), !key.isEmpty else {
            return .badRequest("Missing key")
        }
        guard let failures = Int(request.queryValue("failures") ?? "1"), failures >= 0 else {
            return .badRequest("Invalid failures")
        }
        let attempt = counts.withLockedValue { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
        guard attempt > failures else { return dropConnection }
        return .json([
            "data": ["code": "200", "message": "OK", "key": .string(key), "attempt": .int(attempt)]
        ])
    }

    /// A response that is never sent: NIO's outbound header validator refuses a header value
    /// holding CR LF, writes nothing and reports an error, and `HTTPHandler.errorCaught` closes
    /// the connection. The client sees the connection close with no response at all.
    static let dropConnection = DemoResponse(
        status: .ok, headers: ["X-Drop-Connection": "refused\r\n"], body: [])
}
