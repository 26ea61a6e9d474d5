import Foundation

/// An upload: its body is sent from memory, a file or a stream, and the server's response comes
/// back in memory like a ``DataRequest``'s (`responseDecodable`, `decode`, ...).
///
/// `.progress(_:)` on an upload reports bytes **sent**.
public final class UploadRequest: Request, DataResponding, @unchecked Sendable {}  // adds no stored property
