import Foundation

extension WebSocket {
    /// Shows a short message for a person when the socket fails (``WebSocketState/failed(_:)``):
    /// the error's ``NetworkError/userMessage``. A close, by either side, or a cancel shows
    /// nothing. Starts the socket.
    /// - Parameter warnable: Where the message shows.
    /// - Returns: The socket.
    @MainActor
    @discardableResult
    public func warn(with warnable: some Warnable) -> Self {
        let relay = MainActorRelay<WebSocketState> { state in
            guard case .failed(let error) = state, !error.isCancelled else { return }
            warnable.show(error: error.userMessage)
        }
        observe { relay.post($0) }
        return self
    }
}
