import Formwork
import FormworkWebSocketNIOCore
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Formwork's ``WebSocketTransport`` on SwiftNIO (`NIOWebSocket`): WebSockets for a Linux service,
/// where corelibs URLSession cannot open them, `wss` through swift-nio-ssl.
///
/// ```swift
/// let session = Session { $0.webSocketTransport = NIOWebSocketTransport() }
/// ```
///
/// Each connection is a NIO channel that reads from the socket only when Formwork asks for the
/// next message (auto-read off), so a reader that stops reading stops the socket and the server
/// is slowed down by TCP. Fragmented messages are joined (`NIOWebSocketFrameAggregator`) up to the
/// socket's maximum message size; a larger message or frame closes the connection with 1009.
/// Pings are answered; a refused handshake fails with its status and body. The client itself is
/// `NIOWebSocketConnector` (FormworkWebSocketNIOCore); this type gives it its TLS.
public struct NIOWebSocketTransport: WebSocketTransport {
    private var connector: NIOWebSocketConnector
    /// How long a close handshake waits for the server's answer before the connection is dropped.
    public var closeTimeout: TimeAmount {
        get { connector.closeTimeout }
        set { connector.closeTimeout = newValue }
    }

    /// A transport.
    /// - Parameters:
    ///   - group: The event loops the connections run on.
    ///   - tlsConfiguration: TLS for `wss` URLs.
    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
    ) {
        // One context for every connection: the configuration is read (and its roots loaded) once.
        let context = Result { try NIOSSLContext(configuration: tlsConfiguration) }
        connector = NIOWebSocketConnector(group: group) { host in
            try NIOSSLClientHandler(context: try context.get(), serverHostname: host)
        }
    }

    /// Opens a connection (see ``WebSocketTransport/connect(_:subprotocols:maximumMessageSize:)``).
    /// - Parameters:
    ///   - request: The final handshake request.
    ///   - subprotocols: The subprotocols offered (already in the request's headers).
    ///   - maximumMessageSize: The largest message accepted.
    /// - Returns: The open connection.
    /// - Throws: `NetworkError`.
    public func connect(_ request: URLRequest, subprotocols: [String], maximumMessageSize: Int) async throws
        -> any WebSocketConnection
    {
        try await connector.connect(
            request, subprotocols: subprotocols, maximumMessageSize: maximumMessageSize)
    }
}
