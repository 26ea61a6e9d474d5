import Foundation

/// Why a ``MultipartFormData`` body could not be built.
///
/// Appending never fails; problems (a missing file, a header that would break the body) are
/// reported when the body is encoded, before anything is sent. Compare ``reason`` with the
/// static values of ``Reason``.
public struct MultipartEncodingError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New reasons can be added without breaking code that compares against these.
    public let reason: Reason
    /// The file involved: the part's file, or the output file being written.
    public let fileURL: URL?
    /// The error that caused this one, e.g. the file system's.
    public let underlyingError: (any Error)?
    /// A technical, English explanation for logs.
    public let failureReason: String

    /// Creates an error. Formwork creates these itself; apps mostly see them inside a `NetworkError`.
    /// - Parameters:
    ///   - reason: What went wrong.
    ///   - fileURL: The file involved, if any.
    ///   - failureReason: A technical explanation.
    ///   - underlyingError: The error that caused this one.
    public init(
        _ reason: Reason, fileURL: URL? = nil, failureReason: String, underlyingError: (any Error)? = nil
    ) {
        self.reason = reason
        self.fileURL = fileURL
        self.failureReason = failureReason
        self.underlyingError = underlyingError
    }

    /// e.g. `MultipartEncodingError.fileNotFound: No file at /tmp/photo.jpg (part "avatar").`
    public var description: String {
        var text = "MultipartEncodingError.\(reason): \(failureReason)"
        if let underlyingError {
            text += " [underlying: \(underlyingError)]"
        }
        return text
    }
}

extension MultipartEncodingError {
    /// What went wrong, as an extensible set of values (compare with `==`).
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The name of the reason, e.g. `"fileNotFound"`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// A file part's URL is not a `file://` URL.
        public static let notAFileURL = Reason("notAFileURL")
        /// A file part's file does not exist.
        public static let fileNotFound = Reason("fileNotFound")
        /// A file part's URL names a directory.
        public static let fileIsDirectory = Reason("fileIsDirectory")
        /// A file part's file exists but cannot be read.
        public static let fileNotReadable = Reason("fileNotReadable")
        /// A file part's size changed between measuring it and copying it.
        public static let fileSizeChanged = Reason("fileSizeChanged")
        /// A part's MIME type contains control characters (CR, LF...) that would break its header.
        public static let invalidMIMEType = Reason("invalidMIMEType")
        /// A boundary given to `init(boundary:)` is not a valid RFC 2046 boundary.
        public static let invalidBoundary = Reason("invalidBoundary")
        /// A part's content contains the boundary, so the body could not be parsed back.
        public static let boundaryCollision = Reason("boundaryCollision")
        /// The output file already exists (Formwork never overwrites a file it did not create).
        public static let outputFileExists = Reason("outputFileExists")
        /// The output file could not be created or written.
        public static let outputNotWritable = Reason("outputNotWritable")

        /// The reason's name.
        public var description: String { name }
    }
}
