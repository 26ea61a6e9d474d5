import NIOCore
import NIOHTTP1

/// `GET|HEAD /quirky-files/{quirk}/{size}`: the `/files/{size}` file (same content, same query
/// switches: `version`, `cutAt`, `tag`, ...) from servers that are less than perfect, one quirk
/// each, for clients that must still resume safely:
///
/// - `unquoted-etag`: `ETag: files-{size}-v{version}` without quotes (invalid, common in the
///   wild). `If-Range` matches only that exact spelling, as such servers compare raw strings: a
///   quoted tag does not match (the whole file is sent).
/// - `refuse-ranges`: every request with `Range` gets `416` and no body; with `contentRange=1` the
///   416 carries `Content-Range: bytes */{size}`. Without `Range`, the whole file (`200`).
/// - `weak-etag`: only a weak `ETag: W/"…"` (plus `Last-Modified`, which RFC 9110 forbids a client
///   to use in `If-Range` when it has an entity tag). Ranges are served.
/// - `no-validator`: neither `ETag` nor `Last-Modified`. Ranges are served.
///
/// Each quirk rewrites the request and the response of `FileRoutes.file`, so ranges, content and
/// counters stay those of `/files`.
enum QuirkyFileRoutes {
    static let routes: [Route] = [
        Route([.GET], .prefix("/quirky-files/"), handler: file)
    ]

    enum Quirk: String {
        case unquotedETag = "unquoted-etag"
        case refuseRanges = "refuse-ranges"
        case weakETag = "weak-etag"
        case noValidator = "no-validator"
    }

    static func file(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let parts = request.path.dropFirst("/quirky-files/".count).split(separator: "/")
        guard parts.count == 2, let quirk = Quirk(rawValue: String(parts[0])) else {
            return .respond(
                .badRequest(
                    "Use /quirky-files/{quirk}/{size} with quirk unquoted-etag, refuse-ranges, weak-etag or no-validator"
                ))
        }
        var plain = request
        plain.uri = "/files/\(parts[1])" + (request.query.isEmpty ? "" : "?\(request.query)")
        let refusesRange = quirk == .refuseRanges && plain.headers.contains(name: "range")
        switch quirk {
        case .unquotedETag:
            if let ifRange = plain.headers.first(name: "if-range") {
                // The server's own spelling matches; anything quoted is another tag.
                let isDate = ifRange.contains(" ")
                plain.headers.replaceOrAdd(
                    name: "If-Range",
                    value: isDate ? ifRange : ifRange.hasPrefix("\"") ? "\"mismatch\"" : "\"\(ifRange)\"")
            }
        case .refuseRanges:
            plain.headers.remove(name: "range")
            plain.headers.remove(name: "if-range")
        case .weakETag, .noValidator:
            break
        }
        let outcome = FileRoutes.file(plain, context: context)
        guard case .respond(var response) = outcome else { return outcome }
        if let tag = response.headers.first(name: "etag") {
            switch quirk {
            case .unquotedETag:
                response.headers.replaceOrAdd(name: "ETag", value: String(tag.filter { $0 != "\"" }))
            case .weakETag:
                response.headers.replaceOrAdd(name: "ETag", value: "W/\(tag)")
            case .noValidator:
                response.headers.remove(name: "etag")
                response.headers.remove(name: "last-modified")
            case .refuseRanges:
                break
            }
        }
        if refusesRange {
            var headers = response.headers
            if request.queryValue("contentRange") == "1", let length = response.stream?.contentLength {
                headers.add(name: "Content-Range", value: "bytes */\(length)")
            }
            return .respond(DemoResponse(status: .rangeNotSatisfiable, headers: headers, body: []))
        }
        return .respond(response)
    }
}
