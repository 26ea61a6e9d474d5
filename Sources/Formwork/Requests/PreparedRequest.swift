import Foundation

/// What one attempt sends: the `URLRequest` and how its body travels.
struct PreparedRequest: Sendable {
    /// How the body reaches URLSession, which decides the kind of task.
    enum Body: Sendable {
        /// No body, or one already in `urlRequest` (`httpBody` / `httpBodyStream`): a data task.
        case inRequest
        /// Bytes in memory: an upload task from data.
        case data(Data)
        /// A file on disk, read by URLSession as it sends (constant memory): an upload task from a file.
        case file(URL)
    }

    /// The request.
    var urlRequest: URLRequest
    /// How the body travels.
    var body: Body = .inRequest
    /// Files made for this attempt only (e.g. a multipart body above the memory threshold):
    /// removed when the attempt ends, however it ends.
    var temporaryFiles: [URL] = []
    /// For a streamed body: makes a fresh stream with the same bytes. URLSession asks for one when
    /// it must send the body again within an attempt (Apple: redirects 307/308, authentication
    /// challenges, a re-sent request); a stream already read cannot be read again.
    var makeBodyStream: (@Sendable () throws -> InputStream)?

    /// Removes the attempt's temporary files.
    func removeTemporaryFiles() {
        for file in temporaryFiles {
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// Creates the URLSession task for this attempt (not resumed): one whose events go to the
    /// session's delegate, or, given `completion`, one that delivers its whole response to it.
    func makeTask(
        in session: URLSession,
        completion: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)? = nil
    ) -> URLSessionTask {
        guard let completion else {
            switch body {
            case .inRequest: return session.dataTask(with: urlRequest)
            case .data(let data): return session.uploadTask(with: urlRequest, from: data)
            case .file(let url): return session.uploadTask(with: urlRequest, fromFile: url)
            }
        }
        switch body {
        case .inRequest: return session.dataTask(with: urlRequest, completionHandler: completion)
        case .data(let data):
            return session.uploadTask(with: urlRequest, from: data, completionHandler: completion)
        case .file(let url):
            return session.uploadTask(with: urlRequest, fromFile: url, completionHandler: completion)
        }
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

/// Takes a response body in place of memory: a download's partial file.
///
/// Called on the session's serial delegate queue for one attempt at a time, except `close`, which
/// may come from a cancelling thread: implementations lock their own state.
protocol ResponseSink: AnyObject, Sendable {
    /// Headers arrived for `attempt`: decide where the body goes.
    func open(_ response: HTTPURLResponse, attempt: Int) -> SinkDecision
    /// Appends body bytes (only after `.write`) and returns the progress so far.
    func write(_ data: Data) throws(NetworkError) -> TransferProgress
    /// The attempt ended with `error` (nil on success). On success the sink finishes its work
    /// (moves the file into place) and returns an error if that fails.
    func close(attempt: Int, error: NetworkError?) -> NetworkError?
    /// `true` when `open` answered `.complete` for `attempt`: the attempt succeeds whatever its
    /// status.
    func isComplete(attempt: Int) -> Bool
}

/// Where a response body goes.
enum SinkDecision: Sendable, Equatable {
    /// Into the sink, starting from this progress (a resumed download starts past zero).
    case write(TransferProgress)
    /// Into memory (e.g. the error body of a 404), capped.
    case collectInMemory
    /// Not at all: drop this response and start a new attempt at once (e.g. a resume answered
    /// with the wrong range).
    case restart
    /// Not needed: the sink already holds the whole body (a resume whose 416 proved the partial
    /// file complete). The attempt succeeds whatever the status; progress ends at this value.
    case complete(TransferProgress)
}
