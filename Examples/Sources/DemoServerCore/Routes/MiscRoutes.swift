import NIOCore
import NIOHTTP1

/// Timing, odd bodies and counters: `/slow`, `/json/invalid`, `/json/array`, `/json/fragment`,
/// `/html` and `/stats`.
enum MiscRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/slow"), handler: slow),
        Route([.GET], .exact("/json/invalid")) { _ in
            .raw(#"{"data": not json"#, contentType: DemoResponse.jsonContentType)
        },
        Route([.GET], .exact("/json/array")) { _ in .json([1, 2, 3]) },
        Route([.GET], .exact("/json/fragment")) { _ in .json("just a string") },
        Route([.GET], .exact("/html")) { _ in .raw(htmlPage, contentType: DemoResponse.htmlContentType) },
        Route([.GET], .exact("/stats"), handler: stats),
    ]

    /// The longest delay `/slow` accepts, in milliseconds.
    static let maxSleepMilliseconds = 600_000

    /// `GET /slow?ms=N`: answers `{"sleptMs":N}` after N ms, without blocking the event loop.
    static func slow(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let text = request.queryValue("ms") ?? "0"
        guard let milliseconds = Int(text), (0...maxSleepMilliseconds).contains(milliseconds) else {
            return .respond(.badRequest("Invalid ms"))
        }
        let response = DemoResponse.json(["sleptMs": .int(milliseconds)])
        let task = context.eventLoop.scheduleTask(in: .milliseconds(Int64(milliseconds))) { response }
        return .deferred(task.futureResult)
    }

    /// `GET /stats[?tag=T]`: the server's counters: `requests`, body bytes by endpoint family
    /// (`bytesSent.files`, `bytesReceived.upload`) and, with `tag`, that tag's own counters.
    static func stats(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let counters = context.stats.snapshot
        func byFamily(_ counts: [String: Int64]) -> JSON {
            .object(["files": .int(Int(counts["files"] ?? 0)), "upload": .int(Int(counts["upload"] ?? 0))])
        }
        var body: [String: JSON] = [
            "requests": .int(counters.requests),
            "bytesSent": byFamily(counters.bytesSent),
            "bytesReceived": byFamily(counters.bytesReceived),
        ]
        if let tag = request.queryValue("tag") {
            let tagged = counters.tags[tag] ?? ServerStats.TagCounters()
            body["tag"] = [
                "name": .string(tag), "requests": .int(tagged.requests),
                "bytesSent": .int(Int(tagged.bytesSent)),
                "bytesReceived": .int(Int(tagged.bytesReceived)),
            ]
        }
        return .respond(.json(.object(body)))
    }

    static let htmlPage = """
        <!DOCTYPE html>
        <html><head><title>Formwork demo</title></head>
        <body><h1>Formwork demo server</h1><p>This is HTML, not JSON.</p></body></html>

        """
}
