import Foundation

/// An ``EventMonitor`` that prints one line per event, with credentials redacted.
///
/// ```swift
/// let api = Session { $0.interceptors.eventMonitors = [ConsoleLogger()] }
/// // → GET http://127.0.0.1:8080/weather?city=rome (attempt 1) headers: Authorization: <redacted>
/// // ← 200 GET http://127.0.0.1:8080/weather?city=rome in 12 ms, 1 attempt, sent 0 B, received 231 B
/// ```
public struct ConsoleLogger: EventMonitor {
    /// What to hide.
    let redaction: Redaction
    /// Whether request headers are printed.
    let logsHeaders: Bool
    private let write: @Sendable (String) -> Void

    /// Creates a logger.
    /// - Parameters:
    ///   - redaction: What to hide (default: `Authorization`, `Cookie`, `Set-Cookie`...).
    ///   - logsHeaders: Whether request headers are printed (default `true`).
    ///   - write: Where lines go (default: standard error).
    public init(
        redaction: Redaction = .standard, logsHeaders: Bool = true,
        write: @escaping @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    ) {
        self.redaction = redaction
        self.logsHeaders = logsHeaders
        self.write = write
    }

    /// Prints the request line and (redacted) headers.
    public func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        var line = "→ \(request.httpMethod ?? "GET") \(redaction.url(request.url)) (attempt \(attempt))"
        if logsHeaders, let headers = request.allHTTPHeaderFields, !headers.isEmpty {
            let shown = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
                .map { "\($0.key): \(redaction.value(ofHeader: $0.key, $0.value))" }
            line += " headers: " + shown.joined(separator: ", ")
        }
        write(line)
    }

    /// Prints the request line of a request that shares another one's network request.
    public func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID)
    {
        write(
            "⇢ \(request.httpMethod ?? "GET") \(redaction.url(request.url)) (attempt \(attempt)) shares the "
                + "request \(leaderID.uuidString.prefix(8)) in flight")
    }

    /// Prints the retry and its delay.
    public func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int)
    {
        write("↻ retry \(retryCount) in \(Int(delay * 1000)) ms after \(error.kind): \(error.failureReason)")
    }

    /// Prints the status, duration, attempts and byte counts.
    public func requestDidFinish(_ metrics: RequestMetrics) {
        let method = metrics.request?.httpMethod ?? "GET"
        let status = metrics.response.map { String($0.statusCode) } ?? "---"
        var line =
            "← \(status) \(method) \(redaction.url(metrics.request?.url)) in \(Int(metrics.duration * 1000)) ms, "
            + "\(metrics.attempts) attempt\(metrics.attempts == 1 ? "" : "s"), "
            + "sent \(metrics.bytesSent) B, received \(metrics.bytesReceived) B"
        if metrics.source != .network {
            line +=
                ", from cache (\(metrics.source.rawValue)\(metrics.isStale ? ", stale" : ""), "
                + "age \(Int(metrics.age ?? 0)) s)"
        }
        if let error = metrics.error {
            line += " ✗ \(error.kind): \(error.failureReason)"
        }
        write(line)
    }
}
