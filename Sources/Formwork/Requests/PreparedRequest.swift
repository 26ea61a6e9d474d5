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
    /// Whether the form lets this attempt share an identical request's network request
    /// (``RequestFormable/coalescesRequests``); the session and the rules of ``CoalescingKey`` decide.
    var coalesces = false
    /// What the HTTP cache knows about this attempt (`nil` until it looked; see `RequestCore+Cache.swift`).
    var cache: CacheContext?

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
