/// What ``StreamRequest/updates()`` hands the reading loop: each event, and each change of the
/// connection in order with them.
///
/// ```swift
/// for try await update in stream(ScoresForm()).updates() {
///     switch update {
///     case .event(let event): show(event.data)
///     case .connection(.reconnecting(let wait)): showBanner("Reconnecting in \(Int(wait)) s")
///     case .connection(let state): showStatus(state)
///     }
/// }
/// ```
public enum EventStreamUpdate: Sendable, Hashable {
    /// An event, as ``StreamRequest/events()`` gives it.
    case event(ServerSentEvent)
    /// The connection changed: `connecting`, `open`, `lost`, `reconnecting(after:)`, and `closed`
    /// last of all (see ``StreamConnectionState``).
    case connection(StreamConnectionState)
}
