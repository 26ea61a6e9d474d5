/// One event of a `text/event-stream` response (server-sent events), as the WHATWG HTML
/// standard's "Server-sent events" section dispatches it.
///
/// ```swift
/// for try await event in session.stream(ScoresForm()).events() {
///     print(event.type, event.data, event.id)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: the value of its last `event:` field, or `"message"` when it had none.
    public var type: String
    /// The event's data: its `data:` lines joined with LF (no LF at the end).
    public var data: String
    /// The last event ID when the event was dispatched: set by the latest `id:` field of the
    /// connection (events without an `id:` keep the previous one); empty when there was none.
    /// This is what a reconnection sends back as `Last-Event-ID`.
    public var id: String

    /// Creates an event (the stream makes these; tests and previews may too).
    /// - Parameters:
    ///   - type: The event type; defaults to `"message"`.
    ///   - data: The data.
    ///   - id: The last event ID; defaults to empty.
    public init(type: String = "message", data: String, id: String = "") {
        self.type = type
        self.data = data
        self.id = id
    }
}
