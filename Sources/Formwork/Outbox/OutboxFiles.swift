import Foundation

/// The plain POSIX calls the outbox's directory is kept with (corelibs' `Data.write(to:)` and
/// `FileManager` cost milliseconds per small file here), each retried on `EINTR`, each failure
/// a ``NetworkError`` of kind ``NetworkError/Kind/outbox`` that keeps the system's words.
enum OutboxFiles {
    /// The mode of every file the outbox creates: readable and writable by this user only.
    static let fileMode: mode_t = 0o600
    /// The mode of every folder the outbox creates.
    static let directoryMode: mode_t = 0o700
    /// The size of one read when a body file is copied.
    static let copyChunkSize = 256 * 1024

    /// Calls `call` again while it fails with `EINTR`.
    /// - Parameter call: A system call returning -1 (and setting `errno`) on failure.
    /// - Returns: What the call returned the last time.
    static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// The system's words for an `errno` value, e.g. "No space left on device".
    /// - Parameter code: The `errno` value.
    /// - Returns: Its text.
    static func text(of code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A ``NetworkError/Reason/directoryUnusable`` error for a call that failed with `code`.
    /// - Parameters:
    ///   - action: What was being done, e.g. "create the folder".
    ///   - path: The path it was done to.
    ///   - code: The `errno` value.
    /// - Returns: The error, with the system's words in its failure reason and a `POSIXError` as
    ///   its underlying error.
    static func unusable(_ action: String, _ path: String, code: Int32) -> NetworkError {
        NetworkError(
            .outbox,
            failureReason: "The outbox could not \(action) \(path): \(text(of: code)) (errno \(code)).",
            details: .init(reason: .directoryUnusable, fileURL: URL(fileURLWithPath: path)),
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }

    /// Creates the folder at `path` (and the folders above it) with mode 0700, or accepts the
    /// folder that is there.
    /// - Parameter path: The folder's path.
    /// - Throws: ``NetworkError/Reason/directoryUnusable`` when it cannot be created or is not a
    ///   folder.
    static func makeDirectory(_ path: String) throws(NetworkError) {
        if retrying({ mkdir(path, directoryMode) }) == 0 { return }
        let code = errno
        switch code {
        case EEXIST:
            guard kind(of: path) == .directory else { throw unusable("use the folder", path, code: ENOTDIR) }
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else {
                throw unusable("create the folder", path, code: code)
            }
            try makeDirectory(parent)
            guard retrying({ mkdir(path, directoryMode) }) == 0 || errno == EEXIST else {
                throw unusable("create the folder", path, code: errno)
            }
        default:
            throw unusable("create the folder", path, code: code)
        }
    }

    /// Opens a folder to `fsync` it.
    /// - Parameter path: The folder's path.
    /// - Returns: The open descriptor.
    /// - Throws: ``NetworkError/Reason/directoryUnusable``.
    static func openDirectory(_ path: String) throws(NetworkError) -> Int32 {
        let descriptor = retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw unusable("open the folder", path, code: errno) }
        return descriptor
    }

    /// The names in a folder ("." and ".." left out), unsorted.
    /// - Parameter path: The folder's path.
    /// - Returns: The names.
    /// - Throws: ``NetworkError/Reason/directoryUnusable`` when the folder cannot be read.
    static func names(in path: String) throws(NetworkError) -> [String] {
        guard let stream = opendir(path) else { throw unusable("read the folder", path, code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                String(cString: UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What is at a path.
    enum Kind: Equatable {
        /// Nothing.
        case nothing
        /// A regular file of this many bytes.
        case file(size: Int64)
        /// A folder.
        case directory
        /// Something else: a link, a socket, a device...
        case other
    }

    /// What is at `path` (a symbolic link is not followed).
    /// - Parameter path: The path.
    /// - Returns: Its kind.
    static func kind(of path: String) -> Kind {
        var info = stat()
        guard retrying({ lstat(path, &info) }) == 0 else { return .nothing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(size: Int64(info.st_size))
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Closes a descriptor (a close that fails has nothing left to report: the data was synced before).
    /// - Parameter descriptor: The open descriptor.
    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Writes every byte of `buffer` to `descriptor`.
    /// - Parameters:
    ///   - buffer: The bytes.
    ///   - descriptor: An open file.
    /// - Returns: 0, or the `errno` value of the write that failed.
    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        guard let base = buffer.baseAddress else { return 0 }
        var offset = 0
        while offset < buffer.count {
            let written = retrying { write(descriptor, base + offset, buffer.count - offset) }
            if written < 0 { return errno }
            if written == 0 { return EIO }
            offset += written
        }
        return 0
    }

    /// The bytes of the regular file at `path`, when it has at most `limit` of them.
    enum Contents {
        /// The file's bytes.
        case bytes([UInt8])
        /// The file is larger than the limit: its size.
        case tooLarge(Int64)
        /// It could not be read: the `errno` value.
        case failed(Int32)
    }

    /// Reads a whole file with `open`/`read`.
    /// - Parameters:
    ///   - path: The file's path.
    ///   - limit: The largest size read.
    /// - Returns: Its bytes, or why not.
    static func readWhole(_ path: String, limit: Int64) -> Contents {
        let descriptor = retrying { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard descriptor >= 0 else { return .failed(errno) }
        defer { close(descriptor) }
        var info = stat()
        guard retrying({ fstat(descriptor, &info) }) == 0 else { return .failed(errno) }
        let size = Int64(info.st_size)
        guard size <= limit else { return .tooLarge(size) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return retrying { read(descriptor, base + filled, buffer.count - filled) }
            }
            if count < 0 { return .failed(errno) }
            if count == 0 { break }  // shorter than fstat said (cut meanwhile)
            filled += count
        }
        return .bytes(Array(bytes.prefix(filled)))
    }
}
