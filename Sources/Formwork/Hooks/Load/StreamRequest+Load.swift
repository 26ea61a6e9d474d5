import Foundation

// The loading hook of a stream request: it ends at the first item rather than at the request's end.
extension StreamRequest {
    /// Shows loading UI until the stream's first item arrives (or the request ends without one):
    /// what ``Request/load(_:)`` does on a stream.
    ///
    /// `loadable.begin()` runs now and again before a reload; `loadable.end()` runs once per run,
    /// at the first event, line or chunk. Reconnections of an event stream do not show it again.
    @MainActor
    func loadUntilFirstItem(_ loadable: some Loadable) {
        let span = LoadSpan(begin: { loadable.begin() }, end: { loadable.end() })
        span.begin()
        core.onLaterAttemptStart { span.begin() }
        sink.buffer.onFirstItem { Task { @MainActor in span.end() } }
        core.append { _ in await span.end() }
    }
}
