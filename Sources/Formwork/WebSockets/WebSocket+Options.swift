import Foundation

extension WebSocket {
    /// How a ``WebSocket`` holds messages and reconnects (see ``Session/webSocket(_:options:)``).
    public struct Options: Sendable, Equatable {
        /// The most message bytes held for a reader that falls behind (see
        /// ``WebSocket/bufferLimit``). Defaults to ``WebSocket/defaultBufferLimit``.
        public var bufferLimit: Int
        /// The largest message accepted (see ``WebSocket/maximumMessageSize``). Defaults to
        /// ``WebSocket/defaultMaximumMessageSize``.
        public var maximumMessageSize: Int
        /// Whether and when the socket connects again. Defaults to ``WebSocketReconnection/never``.
        public var reconnection: WebSocketReconnection

        /// Options.
        /// - Parameters:
        ///   - bufferLimit: The most message bytes held for a reader that falls behind.
        ///   - maximumMessageSize: The largest message accepted.
        ///   - reconnection: Whether and when the socket connects again.
        public init(
            bufferLimit: Int = WebSocket.defaultBufferLimit,
            maximumMessageSize: Int = WebSocket.defaultMaximumMessageSize,
            reconnection: WebSocketReconnection = .never
        ) {
            self.bufferLimit = bufferLimit
            self.maximumMessageSize = maximumMessageSize
            self.reconnection = reconnection
        }
    }
}
