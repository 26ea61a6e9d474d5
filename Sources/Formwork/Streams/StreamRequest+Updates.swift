import Foundation

extension StreamRequest {
    /// The last event ID as the stream knows it: the ID of the latest block the stream dispatched
    /// (an event, or a block with an `id:` and no data, which is no event), kept across
    /// connections; what the next connection sends as `Last-Event-ID`. Empty until the server
    /// sent one.
    ///
    /// The stream reads ahead of its reader (up to its `bufferLimit:`), so while events wait in the
    /// buffer this is the ID of a later block than the event the loop holds: to remember what
    /// your app handled, keep ``ServerSentEvent/id`` of the events you took.
    public var lastEventID: String { sink.lastEventID }

    /// The reconnection time as the stream knows it: the server's latest valid `retry:` (a field
    /// that changes it without any event) in seconds, else ``StreamReconnection/defaultRetry``.
    /// The actual wait before a reconnection starts from it (see ``StreamReconnection``: back-off
    /// and jitter) and is what `reconnecting(after:)` tells.
    public var reconnectionTime: TimeInterval { sink.reconnectionTime }

    /// Reads the body as server-sent events, as ``events()`` does, together with the changes of
    /// the connection, in order: `connection(.connecting)`, `connection(.open)`, the connection's
    /// events, then `connection(.lost)` and `connection(.reconnecting(after:))` when it ends and
    /// the stream connects again, and so on; `connection(.closed)` is the last element, before the
    /// sequence ends (a 204, a stream that does not reconnect) or throws the failure that ended it.
    ///
    /// This and ``events()`` read the same way: one reader at a time.
    /// - Returns: The events and the connection's changes, in order.
    public func updates() -> StreamSequence<EventStreamUpdate> {
        read(.events, closing: .connection(.closed)) { item in
            switch item {
            case .event(let event): .success(.event(event))
            case .connection(let state): .success(.connection(state))
            case .line, .chunk: nil
            }
        }
    }
}
