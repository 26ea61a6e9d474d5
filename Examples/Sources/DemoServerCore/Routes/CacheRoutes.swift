import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1

/// Endpoints for Formwork's HTTP cache tests, per resource id (so parallel tests share nothing):
/// - `GET /cache/resource?id=R&cc=…&etag=1&lastModified=1&vary=Name&expires=S`: counts a hit and
///   answers `{"id":R,"version":V,"hit":N,"variant":…}` with `Cache-Control: cc`, and optionally
///   an `ETag` (`"R-V"`), a `Last-Modified`, a `Vary` field, an `Expires` S seconds ahead, and
///   with `age=A` an `Age: A` on full (non-304) responses; `pad=N` adds N bytes to the body.
///   Full responses also carry `status=S` as their status (default 200) and each `field=Name:Value`
///   as one more field line, as written (repeat it for several lines); with `range=1` a request's
///   single `Range: bytes=A-B` (or `A-`, `-N`) gets `206` with that part of the body; with
///   `headCC=…`, answers to `HEAD` carry that `Cache-Control` instead of `cc`.
///   A matching `If-None-Match` (or `If-Modified-Since` with `lastModified=1`) gets `304` with the
///   same caching fields. While the resource is switched to failing, it answers that status.
/// - `POST|PUT|DELETE|PATCH /cache/resource?id=R`: changes the resource (next version) and
///   answers `200` with `Location: /cache/resource?id=R&moved=1`.
/// - `POST /cache/switch?id=R&fail=500` (or `fail=0`): makes the resource fail, or not.
/// - `GET /cache/stats?id=R`: `{"hits":N,"notModified":N,"conditional":N,"changes":N}`.
enum CacheRoutes {
    struct Resource: Sendable {
        var version = 1
        var hits = 0
        var notModified = 0
        var conditional = 0
        var changes = 0
        var failing = 0
    }

    static let resources = NIOLockedValueBox([String: Resource]())
    /// The fixed `Last-Modified` of every resource.
    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    static let routes: [Route] = [
        Route([.GET], .exact("/cache/resource")) { request in resource(request) },
        Route([.POST, .PUT, .DELETE, .PATCH], .exact("/cache/resource")) { request in
            let id = request.queryValue("id") ?? "default"
            resources.withLockedValue { resources in
                resources[id, default: Resource()].version += 1
                resources[id, default: Resource()].changes += 1
            }
            var response = DemoResponse.json(["id": .string(id), "changed": .bool(true)])
            response.headers.add(name: "Location", value: "/cache/resource?id=\(id)&moved=1")
            return response
        },
        Route([.POST], .exact("/cache/switch")) { request in
            let id = request.queryValue("id") ?? "default"
            let fail = Int(request.queryValue("fail") ?? "0") ?? 0
            resources.withLockedValue { $0[id, default: Resource()].failing = fail }
            return .json(["id": .string(id), "failing": .int(fail)])
        },
        Route([.GET], .exact("/cache/stats")) { request in
            let id = request.queryValue("id") ?? "default"
            let state = resources.withLockedValue { $0[id, default: Resource()] }
            return .json([
                "hits": .int(state.hits), "notModified": .int(state.notModified),
                "conditional": .int(state.conditional), "changes": .int(state.changes),
            ])
        },
    ]

    private static func resource(_ request: DemoRequest) -> DemoResponse {
        let id = request.queryValue("id") ?? "default"
        let ifNoneMatch = request.headers.first(name: "If-None-Match")
        let ifModifiedSince = request.headers.first(name: "If-Modified-Since")
        let state = resources.withLockedValue { resources -> Resource in
            resources[id, default: Resource()].hits += 1
            if ifNoneMatch != nil || ifModifiedSince != nil {
                resources[id, default: Resource()].conditional += 1
            }
            return resources[id, default: Resource()]
        }
        if state.failing != 0 {
            return .json(
                ["code": .string("\(state.failing)"), "message": "Failing on purpose"],
                status: .init(statusCode: state.failing))
        }
        var fields = HTTPHeaders()
        if request.method == .HEAD, let cacheControl = request.queryValue("headCC") {
            fields.add(name: "Cache-Control", value: cacheControl)
        } else if let cacheControl = request.queryValue("cc") {
            fields.add(name: "Cache-Control", value: cacheControl)
        }
        let etag = "\"\(id)-\(state.version)\""
        if request.queryValue("etag") == "1" { fields.add(name: "ETag", value: etag) }
        if request.queryValue("lastModified") == "1" {
            fields.add(name: "Last-Modified", value: lastModified)
        }
        if let vary = request.queryValue("vary") { fields.add(name: "Vary", value: vary) }
        if let seconds = request.queryValue("expires").flatMap(TimeInterval.init) {
            fields.add(name: "Expires", value: httpDate(Date().addingTimeInterval(seconds)))
        }
        let matchesETag = request.queryValue("etag") == "1" && ifNoneMatch == etag
        let matchesDate =
            request.queryValue("lastModified") == "1" && ifNoneMatch == nil && ifModifiedSince == lastModified
        if matchesETag || matchesDate {
            resources.withLockedValue { $0[id, default: Resource()].notModified += 1 }
            return DemoResponse(status: .notModified, headers: fields, body: nil)
        }
        let variant = request.queryValue("vary").flatMap { request.headers.first(name: $0) } ?? ""
        let pad = String(repeating: "x", count: min(Int(request.queryValue("pad") ?? "0") ?? 0, 1 << 22))
        var response = DemoResponse.json([
            "id": .string(id), "version": .int(state.version), "hit": .int(state.hits),
            "variant": .string(variant), "pad": .string(pad),
        ])
        for field in fields { response.headers.add(name: field.name, value: field.value) }
        // An age on full responses only: they arrive already this old; a 304 confirms afresh.
        if let age = request.queryValue("age") { response.headers.add(name: "Age", value: age) }
        return shaped(response, request: request)
    }

    /// A full response with the `status`, `field` and `range` parameters applied.
    private static func shaped(_ response: DemoResponse, request: DemoRequest) -> DemoResponse {
        var response = response
        if let code = request.queryValue("status").flatMap(Int.init), (200...599).contains(code) {
            response.status = HTTPResponseStatus(statusCode: code)
        }
        for item in request.queryItems where item.name == "field" {
            guard let colon = item.value.firstIndex(of: ":") else { continue }
            let name = String(item.value[..<colon])
            let value = String(item.value[item.value.index(after: colon)...]).trimmingCharacters(
                in: .whitespaces)
            guard EchoRoutes.isToken(name), EchoRoutes.isFieldValue(value) else { continue }
            response.headers.add(name: name, value: value)
        }
        guard request.queryValue("range") == "1", let body = response.body,
            let range = request.headers.first(name: "Range").flatMap({ byteRange($0, length: body.count) })
        else { return response }
        response.status = .partialContent
        response.headers.add(
            name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(body.count)")
        response.body = Array(body[range])
        return response
    }

    /// One satisfiable range of `bytes=A-B`, `bytes=A-` or `bytes=-N` within `length` bytes.
    private static func byteRange(_ value: String, length: Int) -> ClosedRange<Int>? {
        guard value.hasPrefix("bytes="), !value.contains(","), length > 0 else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard let first = Int(parts[0]), first < length else { return nil }
        let last = parts[1].isEmpty ? length - 1 : min(Int(parts[1]) ?? -1, length - 1)
        guard last >= first else { return nil }
        return first...last
    }

    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.string(from: date)
    }
}
