import Foundation
import NIOCore
import NIOHTTP1

/// `GET|HEAD /files/{size}`: a file of `size` bytes (0 to 4 GiB) whose content is
/// `DemoFileContent`, streamed with back-pressure, with range support and switches for faults.
///
/// Headers: `Content-Type: application/octet-stream`, `Content-Length`, `Accept-Ranges: bytes`,
/// a strong `ETag: "files-{size}-v{version}"`, `Last-Modified` (2024-01-01 plus `version` days)
/// and `Date`.
///
/// Ranges (RFC 9110 §14): one `bytes=N-`, `bytes=N-M` or `bytes=-S` gives `206` with
/// `Content-Range: bytes first-last/size`; a start at or past the end gives `416` with
/// `Content-Range: bytes */size`; several ranges or a malformed `Range` are ignored (`200`).
/// `If-Range` must equal the ETag or the `Last-Modified` text exactly (a weak tag never matches),
/// or the range is ignored and the whole file is sent (`200`).
///
/// Query switches:
/// - `version=V` (default 0): other content, ETag and Last-Modified: "the file changed".
/// - `cutAt=B`: close the connection after B body bytes; the headers still announce the full length.
/// - `wrongRange=1`: answer a range with `206` whose `Content-Range` (and content) starts at 0.
/// - `chunked=1`: no `Content-Length` (the total is unknown to the client).
/// - `ranges=MODE`: how `Range` is treated, for clients that must stay in bounded memory whatever
///   the server does: `honour` (the default, as above), `rest` (every satisfiable range is answered
///   with the whole rest of the file as `206`, `Content-Range: bytes first-{size-1}/{size}`: the
///   end the client asked for is ignored) or `ignore` (`Range` and `If-Range` are ignored: always
///   the whole file as `200`).
/// - `rate=BPS`: send at most BPS bytes per second.
/// - `tag=T`: count the request and its body bytes under `T` in `GET /stats?tag=T`.
enum FileRoutes {
    static let routes: [Route] = [
        Route([.GET], .prefix("/files/"), handler: file)
    ]

    /// The largest size served: 4 GiB.
    static let maxSize: Int64 = 1 << 32

    /// `Last-Modified` of version 0: 2024-01-01T00:00:00Z.
    static let baseModificationDate = Date(timeIntervalSince1970: 1_704_067_200)

    /// How a `/files` request's `Range` header is treated (`ranges=`).
    enum RangeMode: String {
        /// As RFC 9110 says: the bytes asked for.
        case honour
        /// From the first byte asked for to the end of the file, whatever end was asked for.
        case rest
        /// Not at all: the whole file with `200`.
        case ignore
    }

    /// The query switches of a `/files` request.
    struct Options {
        var version: UInt64 = 0
        var cutAt: Int64?
        var wrongRange = false
        var chunked = false
        var ranges = RangeMode.honour
        var bytesPerSecond: Int64?
        var tag: String?

        /// A query value that is not valid; its message goes into a 400.
        struct Invalid: Error {
            let message: String
        }

        /// Parses the query.
        static func parse(_ request: DemoRequest) throws(Invalid) -> Options {
            var options = Options()
            if let text = request.queryValue("version") {
                guard let version = UInt64(text), version <= 1_000_000 else {
                    throw Invalid(message: "Invalid version")
                }
                options.version = version
            }
            if let text = request.queryValue("cutAt") {
                guard let cutAt = Int64(text), cutAt >= 0 else { throw Invalid(message: "Invalid cutAt") }
                options.cutAt = cutAt
            }
            if let text = request.queryValue("rate") {
                guard let rate = Int64(text), rate > 0 else { throw Invalid(message: "Invalid rate") }
                options.bytesPerSecond = rate
            }
            if let text = request.queryValue("ranges") {
                guard let mode = RangeMode(rawValue: text) else {
                    throw Invalid(message: "Invalid ranges: use honour, rest or ignore")
                }
                options.ranges = mode
            }
            options.wrongRange = ["1", "true"].contains(request.queryValue("wrongRange"))
            options.chunked = ["1", "true"].contains(request.queryValue("chunked"))
            options.tag = request.queryValue("tag").flatMap { $0.isEmpty ? nil : $0 }
            return options
        }
    }

    static func file(_ request: DemoRequest, context: RouteContext) -> RouteOutcome {
        let text = request.path.dropFirst("/files/".count)
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let size = Int64(text),
            size <= maxSize
        else {
            return .respond(.badRequest("Invalid size: use /files/{bytes}, at most \(maxSize)"))
        }
        let options: Options
        do {
            options = try Options.parse(request)
        } catch {
            return .respond(.badRequest(error.message))
        }
        context.stats.recordTaggedRequest(tag: options.tag)

        let entityTag = "\"files-\(size)-v\(options.version)\""
        let lastModified = httpDate(baseModificationDate.addingTimeInterval(Double(options.version) * 86_400))
        var headers: HTTPHeaders = [
            "Content-Type": "application/octet-stream",
            "Accept-Ranges": "bytes",
            "ETag": entityTag,
            "Last-Modified": lastModified,
            "Date": httpDate(Date()),
        ]

        var status = HTTPResponseStatus.ok
        var contentStart: Int64 = 0
        var length = size
        let validatorMatches = request.headers.first(name: "if-range").map {
            $0 == entityTag || $0 == lastModified
        }
        if let rangeHeader = request.headers.first(name: "range"), validatorMatches ?? true,
            options.ranges != .ignore
        {
            switch ByteRange.parse(rangeHeader, size: size) {
            case .ignored:
                break
            case .unsatisfiable:
                headers.add(name: "Content-Range", value: "bytes */\(size)")
                return .respond(DemoResponse(status: .rangeNotSatisfiable, headers: headers, body: []))
            case .range(let range):
                status = .partialContent
                // ranges=rest: the whole rest, whatever end was asked for.
                let last = options.ranges == .rest ? size - 1 : range.upperBound
                length = last - range.lowerBound + 1
                // wrongRange: the right length, but from the wrong place.
                contentStart = options.wrongRange ? 0 : range.lowerBound
                headers.add(
                    name: "Content-Range", value: "bytes \(contentStart)-\(contentStart + length - 1)/\(size)"
                )
            }
        }

        let version = options.version
        let start = contentStart
        let stats = context.stats
        let tag = options.tag
        let stream = StreamedBody(
            contentLength: options.chunked ? nil : length,
            bytesToSend: min(length, options.cutAt ?? length),
            closesEarly: (options.cutAt ?? length) < length,
            bytesPerSecond: options.bytesPerSecond,
            fill: { buffer, offset in
                DemoFileContent.fill(buffer, from: UInt64(start + offset), version: version)
            },
            onSent: { count in stats.recordSent(count, family: "files", tag: tag) }
        )
        return .respond(DemoResponse(status: status, headers: headers, stream: stream))
    }

    /// `date` as an IMF-fixdate, e.g. `Mon, 01 Jan 2024 00:00:00 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// How a `Range` header applies to a representation of `size` bytes (RFC 9110 §14.1.2).
enum ByteRange: Equatable {
    /// Not a single, well-formed byte range: answer with the whole representation.
    case ignored
    /// Well-formed but starting at or past the end: 416.
    case unsatisfiable
    /// The bytes to send, first and last inclusive.
    case range(ClosedRange<Int64>)

    static func parse(_ header: String, size: Int64) -> ByteRange {
        let text = Substring(header).trimmingWhitespace()
        guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "bytes" else {
            return .ignored
        }
        let spec = text[text.index(after: equals)...].trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .ignored }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        func number(_ digits: Substring) -> Int64? {
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int64(digits)
        }
        if firstText.isEmpty {
            // bytes=-S: the last S bytes.
            guard let suffix = number(lastText) else { return .ignored }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - suffix)...(size - 1))
        }
        guard let first = number(firstText) else { return .ignored }
        var last = size - 1
        if !lastText.isEmpty {
            guard let parsed = number(lastText), parsed >= first else { return .ignored }
            last = min(parsed, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .range(first...last)
    }
}
