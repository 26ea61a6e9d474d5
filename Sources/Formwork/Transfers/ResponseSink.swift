import Foundation

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
    /// Whether `write` may block its caller (the transport's delivery thread) until the sink can
    /// take more, and for how long (see ``TransportRequest/bodyMayBlock``).
    var pacing: SinkPacing { get }
    /// After an attempt succeeded: `true` when the body is not complete yet and its next part
    /// must be fetched at once, as a new attempt (a download in segments).
    func wantsNextSegment() -> Bool
    /// After an attempt failed with `failure`: the wait before the sink's own rule opens a new
    /// connection (an event stream reconnects after a drop or a clean end), or `nil` to leave
    /// the failure to the retriers.
    func reconnectDelay(after failure: NetworkError) -> TimeInterval?
    /// Whether `failure` is only the sink's own reason to reconnect (an event stream's connection
    /// that the server ended cleanly), not an error to report as one.
    func isCleanEnd(_ failure: NetworkError) -> Bool
}

extension ResponseSink {
    /// A body comes whole, in one attempt.
    func wantsNextSegment() -> Bool { false }
    /// Failures go to the retriers.
    func reconnectDelay(after failure: NetworkError) -> TimeInterval? { nil }
    /// Every failure is one.
    func isCleanEnd(_ failure: NetworkError) -> Bool { false }
}

/// How long a sink's `write` may block the transport's delivery thread.
enum SinkPacing: Sendable, Equatable {
    /// Never: it takes every chunk at once.
    case never
    /// For a disk write that fell behind the network (downloads).
    case disk
    /// For as long as an app's reader takes to catch up (streams with `slowDown`).
    case reader
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
