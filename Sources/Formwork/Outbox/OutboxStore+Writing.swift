import Foundation

extension OutboxStore {
    /// A file the app gave as a request's body, open for copying.
    struct BodySource {
        /// The file.
        let url: URL
        /// The open descriptor.
        let descriptor: Int32
        /// Its size when opened.
        let size: Int64

        /// Opens the file, failing as an upload of a missing or unreadable file does.
        /// - Parameter url: The app's file.
        /// - Throws: ``NetworkError/Kind/fileOperationFailed`` with ``NetworkError/Reason/notAFileURL``,
        ///   ``NetworkError/Reason/fileNotFound``, ``NetworkError/Reason/fileIsDirectory`` or
        ///   ``NetworkError/Reason/fileNotReadable``.
        init(_ url: URL) throws(NetworkError) {
            guard url.isFileURL else { throw Self.failure(.notAFileURL, url, "is not a file URL") }
            // O_NONBLOCK: a FIFO given by mistake is refused below instead of waiting for a writer.
            let descriptor = OutboxFiles.retrying { open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
            guard descriptor >= 0 else {
                let code = errno
                let missing = code == ENOENT || code == ENOTDIR
                throw Self.failure(
                    missing ? .fileNotFound : .fileNotReadable, url,
                    missing ? "does not exist" : "is not readable (\(OutboxFiles.text(of: code)))", code: code
                )
            }
            var info = stat()
            guard OutboxFiles.retrying({ fstat(descriptor, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG
            else {
                let isDirectory = info.st_mode & S_IFMT == S_IFDIR
                OutboxFiles.closeDescriptor(descriptor)
                throw Self.failure(
                    isDirectory ? .fileIsDirectory : .fileNotReadable, url,
                    isDirectory ? "is a directory" : "is not a regular file")
            }
            self.url = url
            self.descriptor = descriptor
            self.size = Int64(info.st_size)
        }

        /// Closes the file.
        func finish() {
            OutboxFiles.closeDescriptor(descriptor)
        }

        /// A ``NetworkError/Kind/fileOperationFailed`` error about the file.
        static func failure(_ reason: NetworkError.Reason, _ url: URL, _ why: String, code: Int32? = nil)
            -> NetworkError
        {
            NetworkError(
                .fileOperationFailed, failureReason: "The file to upload \(url.path) \(why).",
                details: .init(reason: reason, fileURL: url),
                underlyingError: code.map { POSIXError(POSIXErrorCode(rawValue: $0) ?? .EIO) })
        }
    }

    /// What goes into a file the store writes.
    enum FileContent {
        /// These bytes (an entry file).
        case bytes([UInt8])
        /// These bytes (a large data body).
        case data(Data)
        /// A copy of the app's file.
        case copy(BodySource)
    }

    /// Writes a record's body file (if `body` is one) and its entry file, each to `tmp/`, synced,
    /// then renamed into place; the `bodies` folder is synced before the entry is written, the
    /// `entries` folder after. On failure nothing of the record is left.
    /// - Parameters:
    ///   - entry: The entry file's bytes.
    ///   - fileName: Its name in `entries/`.
    ///   - body: The body file's content, or `nil` when the body is inline or absent.
    ///   - id: The record's id.
    func write(_ entry: [UInt8], fileName: String, body: FileContent?, id: UUID) throws(NetworkError) {
        let temporaryBody = paths.temporary + "/" + id.uuidString + ".body"
        let temporaryEntry = paths.temporary + "/" + id.uuidString + ".entry"
        let finalBody = paths.bodies + "/" + id.uuidString
        let finalEntry = paths.entries + "/" + fileName
        var placed: [String] = []
        do throws(NetworkError) {
            if let body {
                try writeSynced(body, to: temporaryBody)
                try place(temporaryBody, at: finalBody)
                placed.append(finalBody)
                try synchronizeFolder(bodiesDescriptor, path: paths.bodies)
            }
            try writeSynced(.bytes(entry), to: temporaryEntry)
            try place(temporaryEntry, at: finalEntry)
            placed.append(finalEntry)
            try synchronizeFolder(entriesDescriptor, path: paths.entries)
        } catch {
            for path in [temporaryBody, temporaryEntry] + placed.reversed() { unlink(path) }
            throw error
        }
    }

    /// Creates `path` (mode 0600), fills it and syncs it.
    private func writeSynced(_ content: FileContent, to path: String) throws(NetworkError) {
        let descriptor = OutboxFiles.retrying {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, OutboxFiles.fileMode)
        }
        guard descriptor >= 0 else { throw OutboxFiles.unusable("create", path, code: errno) }
        defer { OutboxFiles.closeDescriptor(descriptor) }
        let code: Int32
        switch content {
        case .bytes(let bytes): code = bytes.withUnsafeBytes { OutboxFiles.writeAll($0, to: descriptor) }
        case .data(let data): code = data.withUnsafeBytes { OutboxFiles.writeAll($0, to: descriptor) }
        case .copy(let source): code = try copy(source, to: descriptor)
        }
        guard code == 0 else { throw OutboxFiles.unusable("write", path, code: code) }
        let synced = synchronize(descriptor)
        guard synced == 0 else { throw OutboxFiles.unusable("sync", path, code: synced) }
    }

    /// Copies the app's file to `descriptor`, checking that its size did not change.
    /// - Returns: 0, or the `errno` value of the write that failed.
    private func copy(_ source: BodySource, to descriptor: Int32) throws(NetworkError) -> Int32 {
        var buffer = [UInt8](repeating: 0, count: OutboxFiles.copyChunkSize)
        var copied: Int64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return OutboxFiles.retrying { read(source.descriptor, base, raw.count) }
            }
            if count < 0 {
                let code = errno
                throw BodySource.failure(
                    .fileNotReadable, source.url,
                    "could not be read after \(copied) bytes (\(OutboxFiles.text(of: code)))", code: code)
            }
            if count == 0 { break }
            copied += Int64(count)
            guard copied <= source.size else { break }
            let code = buffer.withUnsafeBytes {
                OutboxFiles.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: descriptor)
            }
            guard code == 0 else { return code }
        }
        guard copied == source.size else {
            throw BodySource.failure(
                .fileSizeChanged, source.url,
                "was \(source.size) bytes when opened but changed while being copied")
        }
        return 0
    }

    /// Renames a synced temporary file into place.
    private func place(_ temporary: String, at final: String) throws(NetworkError) {
        guard OutboxFiles.retrying({ rename(temporary, final) }) == 0 else {
            throw OutboxFiles.unusable("rename a file to", final, code: errno)
        }
    }

    /// Syncs a folder, so that the renames into it survive a crash.
    private func synchronizeFolder(_ descriptor: Int32, path: String) throws(NetworkError) {
        let code = synchronize(descriptor)
        guard code == 0 else { throw OutboxFiles.unusable("sync the folder", path, code: code) }
    }
}
