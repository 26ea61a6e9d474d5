import Foundation

/// A multipart body ready to send: in memory, or in a temporary file.
///
/// Whoever asks for one owns its temporary file: call ``removeTemporaryFile()`` when the upload
/// is over (after the last retry, however it ended). Removing is idempotent and harmless for an
/// in-memory body.
enum EncodedMultipartBody: Sendable, Equatable {
    /// A body smaller than the memory threshold.
    case data(Data)
    /// A body written to a temporary file of `length` bytes.
    case temporaryFile(URL, length: Int64)

    /// The body's exact size: the `Content-Length` to send.
    var contentLength: Int64 {
        switch self {
        case .data(let data): Int64(data.count)
        case .temporaryFile(_, let length): length
        }
    }

    /// Removes the temporary file, if this body has one.
    func removeTemporaryFile() {
        if case .temporaryFile(let url, _) = self {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The prefix of every temporary body file, so that leftovers can be recognised.
    static let temporaryFilePrefix = "formwork-multipart-"

    /// A new, unique path in the temporary directory (nothing is created).
    static func newTemporaryFileURL(in directory: URL = FileManager.default.temporaryDirectory) -> URL {
        directory.appendingPathComponent("\(temporaryFilePrefix)\(UUID().uuidString).body")
    }

    /// Removes body files older than `age` seconds left in `directory` by a process that crashed
    /// mid-upload. Returns how many were removed.
    @discardableResult
    static func removeStaleTemporaryFiles(
        olderThan age: TimeInterval = 24 * 60 * 60,
        in directory: URL = FileManager.default.temporaryDirectory,
        now: Date = Date()
    ) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(temporaryFilePrefix) && name.hasSuffix(".body") {
            let url = directory.appendingPathComponent(name)
            guard
                let modified = (try? manager.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > age
            else { continue }
            if (try? manager.removeItem(at: url)) != nil {
                removed += 1
            }
        }
        return removed
    }
}

extension MultipartFormData {
    /// Builds the body in memory when it is smaller than `memoryThreshold` bytes, else in a new
    /// temporary file that the caller must remove (see ``EncodedMultipartBody``). If writing the
    /// file fails, it is removed before the error is thrown.
    /// - Parameters:
    ///   - memoryThreshold: The `encodingMemoryThreshold` of the upload form.
    ///   - directory: Where the temporary file goes (tests pass their own directory).
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/multipartEncodingFailed`` or
    ///   ``NetworkError/Kind/fileOperationFailed``.
    func encodedBody(
        memoryThreshold: Int = MultipartFormData.defaultEncodingMemoryThreshold,
        temporaryDirectory directory: URL = FileManager.default.temporaryDirectory
    ) throws -> EncodedMultipartBody {
        let length = try encodedLength()
        if length < Int64(memoryThreshold) {
            return .data(try encodedData())
        }
        let url = EncodedMultipartBody.newTemporaryFileURL(in: directory)
        try writeEncoded(to: url)
        return .temporaryFile(url, length: length)
    }
}
