import Foundation

/// What one attempt sends: the `URLRequest` and how its body travels (handed to the transport as
/// a ``TransportRequest``).
struct PreparedRequest: Sendable {
    /// How the body travels.
    enum Body: Sendable {
        /// No body, or one already in `urlRequest` (`httpBody` / `httpBodyStream`).
        case inRequest
        /// Bytes in memory.
        case data(Data)
        /// A file on disk, read as it is sent (constant memory).
        case file(URL)
    }

    /// The request.
    var urlRequest: URLRequest
    /// How the body travels.
    var body: Body = .inRequest
    /// Files made for this attempt only (e.g. a multipart body above the memory threshold):
    /// removed when the attempt ends, however it ends.
    var temporaryFiles: [URL] = []
    /// For a streamed body: makes a fresh stream with the same bytes. A transport asks for one
    /// each time it sends the body (URLSession on Apple platforms sends it again for an
    /// authentication challenge or a re-sent request); a stream already read cannot be read again.
    var makeBodyStream: (@Sendable () throws -> InputStream)?
    /// Whether the form lets this attempt share an identical request's network request
    /// (``RequestFormable/coalescesRequests``); the session and the rules of ``CoalescingKey`` decide.
    var coalesces = false
    /// What the HTTP cache knows about this attempt (`nil` until it looked; see `RequestCore+Cache.swift`).
    var cache: CacheUse?
    /// The form's own redirect policy (``Formable/redirectPolicy``); nil: the session's.
    var redirectPolicy: RedirectPolicy?
    /// Whether every header of `urlRequest` was checked as it was built (``HTTPHeaders/validate()``),
    /// so that the attempt needs no ``FinalRequestCheck`` unless an adapter changes the request.
    var headersChecked = false

    /// Removes the attempt's temporary files.
    func removeTemporaryFiles() {
        for file in temporaryFiles {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// The body as a transport takes it.
    var transportBody: TransportRequest.Body {
        switch body {
        case .data(let data): return .data(data)
        case .file(let url): return .file(url)
        case .inRequest:
            if let stream = urlRequest.httpBodyStream {
                // The transport gets the stream in the request first, then fresh ones from the
                // form's factory (a stream can be read only once; one set by an adapter has none).
                let first = StreamOnce(stream)
                let make = makeBodyStream
                return .stream {
                    if let stream = first.take() { return stream }
                    guard let make else {
                        throw NetworkError(
                            .requestBuildFailed,
                            failureReason:
                                "The request's body stream was read already and cannot be sent again.")
                    }
                    return try make()
                }
            }
            return urlRequest.httpBody.map { .data($0) } ?? .none
        }
    }

    /// What the transport sends for this attempt.
    /// - Parameters:
    ///   - isObserved: Whether anything watches the exchange as it moves.
    ///   - pacing: How long receiving the body may block (see ``SinkPacing``).
    func transportRequest(isObserved: Bool, pacing: SinkPacing) -> TransportRequest {
        var request = TransportRequest(
            urlRequest: urlRequest, body: transportBody, isObserved: isObserved,
            bodyMayBlock: pacing != .never)
        request.waitsForReader = pacing == .reader
        return request
    }

    /// The size of the body, when it is known without reading it.
    var bodyLength: Int64? {
        switch body {
        case .inRequest:
            return urlRequest.httpBodyStream == nil ? Int64(urlRequest.httpBody?.count ?? 0) : nil
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?
                .int64Value
        }
    }
}

/// A body stream that can be taken once.
private final class StreamOnce: Sendable {
    private let stream: Protected<InputStream?>

    init(_ stream: InputStream) {
        self.stream = Protected(stream)
    }

    /// The stream, the first time; nil after.
    func take() -> InputStream? {
        stream.withLock { stream in
            defer { stream = nil }
            return stream
        }
    }
}
