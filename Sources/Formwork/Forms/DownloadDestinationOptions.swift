import Foundation

/// How a finished download may treat what is at, and around, its destination.
///
/// The default is no options: a download never replaces anything and never creates folders. When
/// the destination cannot take the file (a file is already there, it is a folder, its folder is
/// missing, is a file, or cannot be written), the download fails with
/// ``NetworkError/Kind/fileOperationFailed``, leaves the destination as it was, and keeps the
/// downloaded file: ``DownloadRequest/resumeData`` then lets a new download to another
/// destination finish without fetching the bytes again.
///
/// ```swift
/// struct AvatarForm: DownloadFormable {
///     var url: String { "https://api.example.com/me/avatar.png" }
///     var destination: URL { caches.appendingPathComponent("avatars/me.png") }
///     var destinationOptions: DownloadDestinationOptions { [.removePreviousFile, .createIntermediateDirectories] }
/// }
/// ```
public struct DownloadDestinationOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt

    /// Creates options from raw bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Replace a file (or symbolic link) already at the destination. The replacement is atomic: at
    /// every moment the destination holds either the old file or the new one. A folder at the
    /// destination is never replaced, with or without this option.
    public static let removePreviousFile = DownloadDestinationOptions(rawValue: 1 << 0)

    /// Create the destination's folder, and any missing folders above it, when it does not exist.
    public static let createIntermediateDirectories = DownloadDestinationOptions(rawValue: 1 << 1)
}
