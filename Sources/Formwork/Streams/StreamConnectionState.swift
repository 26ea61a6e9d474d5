import Foundation

/// Where a stream's connection stands: what a live screen shows beside the latest value (see
/// ``RequestModel/connection``), and what ``StreamRequest/updates()`` hands the reading loop.
///
/// An event stream goes `connecting`, `open`, then, after each drop or clean end, `lost`,
/// `reconnecting(after:)`, `connecting` and `open` again, until it is `closed` (a 204, a failure,
/// a cancel, or the end of a stream that does not reconnect, `lost` first when its connection
/// was open).
public enum StreamConnectionState: Sendable, Hashable {
    /// No stream drives the model (a plain request, or nothing sent yet).
    case idle
    /// The request for a connection is sent; no response yet.
    case connecting
    /// The server accepted the stream; items arrive as it sends them.
    case open
    /// The open connection ended: the server closed it or it dropped. `reconnecting(after:)`
    /// follows when the stream connects again, else `closed`. Not told for a cancel.
    case lost
    /// The connection dropped or ended; the stream connects again after this many seconds (the
    /// server's `retry:`, backed off and with jitter, see ``StreamReconnection``).
    case reconnecting(after: TimeInterval)
    /// The stream ended: the server stopped it (204), it failed, or it was cancelled.
    case closed
}

/// The observers of a stream's connections: each is told, on the thread where it happens, when a
/// connection is asked for, when the server accepts it, when it ends, and when it is reconnected
/// after a wait.
/// The end of the whole stream is the request's end (its reader sees it).
final class StreamConnectionObservers: Sendable {
    private let observers = Protected<[@Sendable (StreamConnectionState) -> Void]>([])

    /// Adds an observer; it hears the connections from now on.
    func add(_ observer: @escaping @Sendable (StreamConnectionState) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Tells every observer (call it outside any lock).
    func post(_ state: StreamConnectionState) {
        for observer in observers.current { observer(state) }
    }
}
