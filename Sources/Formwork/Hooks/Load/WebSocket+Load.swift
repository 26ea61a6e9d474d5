import Foundation

extension WebSocket {
    /// Shows loading UI while the socket connects: `loadable.begin()` when a connection is asked
    /// for (the first and each reconnection), `loadable.end()` once it is open, or the socket
    /// waits to reconnect, closes or fails. Starts the socket.
    ///
    /// ```swift
    /// socket.load(LoadType.default(container: screen)).warn(with: alert)
    /// ```
    /// - Parameter loadable: The loading UI.
    /// - Returns: The socket.
    @MainActor
    @discardableResult
    public func load(_ loadable: some Loadable = LoadType.none) -> Self {
        let span = LoadSpan(begin: { loadable.begin() }, end: { loadable.end() })
        // The newest state wins: a screen needs only to know whether the socket is connecting now.
        let relay = MainActorRelay<WebSocketState> { state in
            if case .connecting = state { span.begin() } else { span.end() }
        }
        observe { relay.post($0) }
        return self
    }
}
