import Foundation
import NIOCore
import NIOHTTP1

/// `GET|HEAD /static/{size}`: the same bytes as `/files/{size}` (version 0), served from a file on
/// disk with `sendfile(2)` (NIO's `FileRegion`), as nginx or any static file server would, so that
/// a download measures the client and not the server's content generator.
///
/// The file of each size is written once, on the first request for it (that request waits; the
/// benchmark sends a `HEAD` first), then reused; it is unlinked at once and so disappears with the
/// server (``StaticFiles``). Under TLS the file is read in chunks instead (`sendfile` cannot
/// encrypt).
///
/// Headers: `Content-Type: application/octet-stream`, `Content-Length`, `Accept-Ranges: bytes`,
/// a strong `ETag: "static-{size}"`, `Last-Modified` (2024-01-01, like `/files` version 0) and
/// `Date`. Ranges and `If-Range` as for `/files`: one range gives `206` with `Content-Range`, a
/// start at or past the end `416` with `Content-Range: bytes */size`, several or malformed ranges
/// are ignored (`200`).
///
/// Query switches (the subset of `/files` the benchmark's resume needs):
/// - `cutAt=B`: close the connection after B body bytes; the headers still announce the full length.
/// - `tag=T`: count the request and its body bytes under `T` in `GET /stats?tag=T`.
enum StaticFileRoutes {
    static let routes: [Route] = [
        Route([.GET], .prefix("/static/"), handler: file)
    ]

    /// The largest size served: 4 GiB, as for `/files` (the file takes that much disk space).
    static let maxSize: Int64 = FileRoutes.maxSize

    static func file(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let text = request.path.dropFirst("/static/".count)
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let size = Int64(text),
            size <= maxSize
        else {
            return .respond(.badRequest("Invalid size: use /static/{bytes}, at most \(maxSize)"))
        }
        let cutAt = request.queryValue("cutAt").map { Int64($0) ?? -1 }
        if let cutAt, cutAt < 0 {
            return .respond(.badRequest("Invalid cutAt"))
        }
        let tag = request.queryValue("tag").flatMap { $0.isEmpty ? nil : $0 }
        context.stats.recordTaggedRequest(tag: tag)
        let stats = context.stats
        let made = StaticFiles.shared.file(size: size, on: context.eventLoop).map { file in
            response(to: request, file: file, cutAt: cutAt) { count in
                stats.recordSent(count, family: "static", tag: tag)
            }
        }
        return .deferred(
            made.flatMapErrorThrowing { error in
                .json(["error": .string("cannot make the file: \(error)")], status: .internalServerError)
            })
    }

    /// The answer to `request` from `file`: whole, one range, or 416.
    private static func response(
        to request: DemoRequest, file: StaticFile, cutAt: Int64?, onSent: @escaping @Sendable (Int) -> Void
    ) -> DemoResponse {
        let size = file.size
        let entityTag = "\"static-\(size)\""
        let lastModified = FileRoutes.httpDate(FileRoutes.baseModificationDate)
        var headers: HTTPHeaders = [
            "Content-Type": "application/octet-stream",
            "Accept-Ranges": "bytes",
            "ETag": entityTag,
            "Last-Modified": lastModified,
            "Date": FileRoutes.httpDate(Date()),
        ]
        var status = HTTPResponseStatus.ok
        var first: Int64 = 0
        var length = size
        let validatorMatches = request.headers.first(name: "if-range").map {
            $0 == entityTag || $0 == lastModified
        }
        if let rangeHeader = request.headers.first(name: "range"), validatorMatches ?? true {
            switch ByteRange.parse(rangeHeader, size: size) {
            case .ignored:
                break
            case .unsatisfiable:
                headers.add(name: "Content-Range", value: "bytes */\(size)")
                return DemoResponse(status: .rangeNotSatisfiable, headers: headers, body: [])
            case .range(let range):
                status = .partialContent
                first = range.lowerBound
                length = range.upperBound - range.lowerBound + 1
                headers.add(name: "Content-Range", value: "bytes \(first)-\(range.upperBound)/\(size)")
            }
        }
        let body = FileBody(
            file: file, offset: first, contentLength: length, bytesToSend: min(length, cutAt ?? length),
            closesEarly: (cutAt ?? length) < length, onSent: onSent)
        return DemoResponse(status: status, headers: headers, file: body)
    }
}
