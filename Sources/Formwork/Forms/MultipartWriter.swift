import Foundation

/// Writes a ``MultipartFormData`` body, in order, to a sink: framing and in-memory parts as they
/// are, file parts in chunks of at most ``chunkSize`` bytes, so memory stays flat for any file.
///
/// Everything that can be checked up front (boundary, headers, that each file exists and its
/// size) is checked before the first byte goes to the sink.
struct MultipartWriter {
    /// How much of a file is read at a time.
    static let defaultChunkSize = 1 << 20

    let form: MultipartFormData
    var chunkSize = MultipartWriter.defaultChunkSize

    /// Writes the whole body to `sink`.
    /// - Throws: ``NetworkError`` for a bad part (see `NetworkError.multipart`),
    ///   or whatever `sink` throws.
    func write(to sink: (Data) throws -> Void) throws {
        try form.validateBoundary()
        // Measure everything first: a missing file fails before anything was written.
        let prepared = try form.parts.map { part throws(NetworkError) in
            let header = try part.headerData()
            switch part.content {
            case .data:
                return (part, header, Int64(0))
            case .file(let url):
                return (part, header, try MultipartFile.size(of: url, part: part.name))
            }
        }
        let delimiter = form.delimiter
        let boundary = Array(form.boundary.utf8)
        for (part, header, fileSize) in prepared {
            try sink(delimiter + header)
            switch part.content {
            case .data(let data):
                try sink(data)
            case .file(let url):
                try MultipartFile.copy(
                    url, part: part.name, expectedSize: fileSize, boundary: boundary, chunkSize: chunkSize,
                    to: sink)
            }
            try sink(MultipartFormData.crlf)
        }
        try sink(form.closeDelimiter)
    }
}

extension NetworkError {
    /// The error for a multipart body that could not be built: of kind
    /// ``Kind/multipartEncodingFailed`` for a problem of the body itself (its boundary, a MIME
    /// type), ``Kind/fileOperationFailed`` for one of a file (a part's, or the output file).
    static func multipart(
        _ reason: Reason, fileURL: URL? = nil, failureReason: String, underlyingError: (any Error)? = nil
    ) -> NetworkError {
        let ofTheBody: Set<Reason> = [.invalidMIMEType, .invalidBoundary, .boundaryCollision]
        return NetworkError(
            ofTheBody.contains(reason) ? .multipartEncodingFailed : .fileOperationFailed,
            failureReason: failureReason, details: Details(reason: reason, fileURL: fileURL),
            underlyingError: underlyingError)
    }
}

/// Measuring and reading the files of file parts.
enum MultipartFile {
    /// The size of the regular file at `url`.
    static func size(of url: URL, part: String) throws(NetworkError) -> Int64 {
        guard url.isFileURL else {
            throw NetworkError.multipart(
                .notAFileURL, fileURL: url, failureReason: "Part \"\(part)\": \(url) is not a file URL.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw NetworkError.multipart(
                .fileNotFound, fileURL: url, failureReason: "Part \"\(part)\": no file at \(url.path).")
        }
        guard !isDirectory.boolValue else {
            throw NetworkError.multipart(
                .fileIsDirectory, fileURL: url, failureReason: "Part \"\(part)\": \(url.path) is a directory."
            )
        }
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard let size = (attributes[.size] as? NSNumber)?.int64Value else {
                throw CocoaError(.fileReadUnknown)
            }
            return size
        } catch {
            throw NetworkError.multipart(
                .fileNotReadable, fileURL: url,
                failureReason: "Part \"\(part)\": cannot read the size of \(url.path).",
                underlyingError: error)
        }
    }

    /// Copies the file to `sink` in chunks, checking its size and that it does not contain `boundary`.
    static func copy(
        _ url: URL, part: String, expectedSize: Int64, boundary: [UInt8], chunkSize: Int,
        to sink: (Data) throws -> Void
    ) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw NetworkError.multipart(
                .fileNotReadable, fileURL: url, failureReason: "Part \"\(part)\": cannot open \(url.path).",
                underlyingError: error)
        }
        defer { try? handle.close() }
        var search = StreamingByteSearch(needle: boundary)
        var copied: Int64 = 0
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: chunkSize)
            } catch {
                throw NetworkError.multipart(
                    .fileNotReadable, fileURL: url,
                    failureReason: "Part \"\(part)\": reading \(url.path) failed after \(copied) bytes.",
                    underlyingError: error)
            }
            guard let chunk, !chunk.isEmpty else { break }
            copied += Int64(chunk.count)
            guard copied <= expectedSize else { break }
            if search.feed(chunk) {
                throw NetworkError.multipart(
                    .boundaryCollision, fileURL: url,
                    failureReason: "Part \"\(part)\": \(url.path) contains the boundary.")
            }
            try sink(chunk)
        }
        guard copied == expectedSize else {
            throw NetworkError.multipart(
                .fileSizeChanged, fileURL: url,
                failureReason:
                    "Part \"\(part)\": \(url.path) was \(expectedSize) bytes when measured but changed while being read."
            )
        }
    }
}

// MARK: - Encoding

extension MultipartFormData {
    /// The default `encodingMemoryThreshold` of upload forms: bodies from this size up are built in
    /// a temporary file instead of memory.
    public static let defaultEncodingMemoryThreshold = 10_000_000

    /// The whole body in memory (file parts are read in chunks and appended).
    /// - Throws: ``NetworkError`` (see `NetworkError.multipart`).
    func encodedData() throws -> Data {
        var data = Data()
        data.reserveCapacity(Int(try encodedLength()))
        try MultipartWriter(form: self).write { data.append($0) }
        return data
    }

    /// Writes the body to a new file at `fileURL` (created with owner-only permissions; an existing
    /// file is never overwritten). On failure the partly written file is removed.
    /// - Throws: ``NetworkError`` (see `NetworkError.multipart`).
    func writeEncoded(to fileURL: URL, chunkSize: Int = MultipartWriter.defaultChunkSize) throws {
        let handle = try Self.createExclusively(fileURL)
        do {
            defer { try? handle.close() }
            var buffer = Data()
            buffer.reserveCapacity(chunkSize)
            func write(_ data: Data) throws {
                do {
                    try handle.write(contentsOf: data)
                } catch {
                    throw NetworkError.multipart(
                        .outputNotWritable, fileURL: fileURL,
                        failureReason: "Writing \(fileURL.path) failed.",
                        underlyingError: error)
                }
            }
            // Small pieces (framing, fields) are gathered; file chunks go straight through.
            try MultipartWriter(form: self, chunkSize: chunkSize).write { piece in
                if buffer.count + piece.count > chunkSize, !buffer.isEmpty {
                    try write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
                if piece.count >= chunkSize {
                    try write(piece)
                } else {
                    buffer.append(piece)
                }
            }
            if !buffer.isEmpty {
                try write(buffer)
            }
        } catch {
            try? FileManager.default.removeItem(at: fileURL)
            throw error
        }
    }

    /// Creates a new file with `O_EXCL` (never replacing one) and mode 0600, open for writing.
    private static func createExclusively(_ fileURL: URL) throws(NetworkError) -> FileHandle {
        guard fileURL.isFileURL else {
            throw NetworkError.multipart(
                .outputNotWritable, fileURL: fileURL, failureReason: "\(fileURL) is not a file URL.")
        }
        let descriptor = open(fileURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            let error = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            if code == EEXIST {
                throw NetworkError.multipart(
                    .outputFileExists, fileURL: fileURL, failureReason: "\(fileURL.path) already exists.",
                    underlyingError: error)
            }
            throw NetworkError.multipart(
                .outputNotWritable, fileURL: fileURL, failureReason: "Cannot create \(fileURL.path).",
                underlyingError: error)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
