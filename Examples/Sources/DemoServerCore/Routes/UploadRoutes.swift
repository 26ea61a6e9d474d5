import ExampleSupport
import NIOCore
import NIOHTTP1

/// `POST|PUT /upload[/...]`: takes a body of any size (Content-Length or chunked) in flat memory
/// and describes what arrived:
/// `{"method","bytes","md5","contentType","contentLength","chunked","parts"}`.
///
/// - `md5` is the hex MD5 of the whole body (`null` with `?md5=0`, for throughput runs).
/// - `contentLength` is the request's `Content-Length` header as a number (`null` if absent);
///   `chunked` is whether it came with `Transfer-Encoding: chunked`.
/// - For a `multipart/form-data` body, `parts` lists `{"name","fileName","contentType","bytes",
///   "md5"}` per part, parsed as the body streams (part contents are hashed, never stored);
///   otherwise `parts` is `null`. A malformed multipart body gets `400` with the same fields plus
///   `error`.
/// - `?tag=T` counts the request and its bytes under `T` in `GET /stats?tag=T`.
/// - `?failKey=K&failures=N&fail=503|cut` fails the first N uploads under K (see `UploadFaults`).
enum UploadRoutes {
    /// For `Router`: the same endpoint with its body collected first. Requests normally take the
    /// streaming route below instead; this one gives `405` to other methods and serves the
    /// endpoint if streaming is not wired in.
    static let routes: [Route] = [
        Route([.POST, .PUT], .subtree("/upload")) { request, context in
            let consumer = UploadConsumer(request: request, stats: context.stats)
            consumer.consume(ByteBuffer(bytes: request.body))
            return .respond(consumer.finish())
        }
    ]

    /// The streaming endpoint, chosen by `HTTPHandler` as soon as the request head arrives.
    static let streamingRoutes: [StreamingRoute] = [
        StreamingRoute(methods: [.POST, .PUT], path: .subtree("/upload")) { request, context in
            UploadConsumer(request: request, stats: context.stats)
        }
    ]
}

/// Counts, hashes and (for multipart) parses one upload's body as it arrives.
final class UploadConsumer: RequestBodyConsumer {
    private let request: DemoRequest
    private let stats: ServerStats
    private let tag: String?
    private var md5: MD5?
    private var bytes: Int64 = 0
    private let multipart: MultipartStreamParser?
    private let multipartError: MultipartError?

    init(request: DemoRequest, stats: ServerStats) {
        self.request = request
        self.stats = stats
        tag = request.queryValue("tag")
        let hashes = request.queryValue("md5") != "0"
        md5 = hashes ? MD5() : nil
        switch MultipartStreamParser.boundary(fromContentType: request.contentType) {
        case .success(let boundary)?:
            multipart = MultipartStreamParser(boundary: boundary, hashes: hashes)
            multipartError = nil
        case .failure(let error)?:
            multipart = nil
            multipartError = error
        case nil:
            multipart = nil
            multipartError = nil
        }
        stats.recordTaggedRequest(tag: tag)
    }

    func consume(_ chunk: ByteBuffer) {
        let count = chunk.readableBytes
        guard count > 0 else { return }
        chunk.withUnsafeReadableBytes { pointer in
            md5?.update(pointer)
            multipart?.feed(pointer)
        }
        bytes += Int64(count)
        stats.recordReceived(count, family: "upload", tag: tag)
    }

    func finish() -> DemoResponse {
        let transferEncoding = request.headers[canonicalForm: "transfer-encoding"].map { $0.lowercased() }
        var body: [String: JSON] = [
            "method": .string(request.method.rawValue),
            "bytes": .int(Int(bytes)),
            "md5": .string(orNull: md5?.finalize()),
            "contentType": .string(orNull: request.contentType),
            "contentLength": request.headers.first(name: "content-length").flatMap { Int($0) }.map(JSON.int)
                ?? .null,
            "chunked": .bool(transferEncoding.contains("chunked")),
            "parts": .null,
        ]
        var failure = multipartError
        if let multipart {
            switch multipart.finish() {
            case .success(let parts): body["parts"] = .array(parts.map(\.json))
            case .failure(let error): failure = error
            }
        }
        if let failure {
            body["error"] = .string("malformed multipart body: \(failure.message)")
            return .json(.object(body), status: .badRequest)
        }
        if let failure = UploadFaults.failure(for: request, describedAs: .object(body)) { return failure }
        return .json(.object(body))
    }
}
