import Foundation

/// One WebSocket message: text or binary, whole (the frames of a fragmented message are joined).
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The payload's size in bytes.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
