import Foundation

/// The outbox's directory: one entry file per pending request, written so that a crash never leaves half an entry.
///
/// The directory holds:
///
/// | path | what |
/// |---|---|
/// | `.lock` | the file this store holds an exclusive `flock` on while open |
/// | `entries/<sequence, 20 digits>-<id>.entry` | one ``OutboxEntryFile`` per pending request |
/// | `bodies/<id>` | the body of a request whose body is ``OutboxRecord/Body/file(size:)`` |
/// | `tmp/` | files being written (renamed into place once synced; removed at open) |
/// | `set-aside/` | entry files that could not be read at open, and their body files |
///
/// An entry is written to `tmp/`, synced and renamed into `entries/`, after its body file (if
/// any) was placed the same way, so an entry on disk always has its whole body. Removing unlinks
/// the entry first, then its body, and syncs nothing: a removal lost in a crash sends the request
/// again with the same idempotency key (at-least-once on the wire).
///
/// Not thread-safe: the ``Outbox`` actor owns one and calls it from its own executor.
final class OutboxStore {
    /// An entry file that could not be read at open, moved to the `set-aside` folder.
    struct SetAside: Sendable, Equatable {
        /// Its name in `entries/`.
        var fileName: String
        /// What was wrong, e.g. "truncated: 12 of 340 bytes".
        var reason: String
        /// Where it is now (its body file, if it had one, is beside it with `.body` appended);
        /// the old place when it could not be moved (the reason then says so).
        var movedTo: URL
    }

    /// Where a pending record's files are.
    struct Placement {
        /// The entry file's name in `entries/`.
        var fileName: String
        /// The bytes of the entry file and its body file.
        var bytes: Int64
        /// Whether it has a file in `bodies/`.
        var hasBodyFile: Bool
    }

    /// The paths of the directory's parts.
    struct Paths {
        /// The directory.
        var root: String
        /// The lock file.
        var lock: String { root + "/.lock" }
        /// The folder of entry files.
        var entries: String { root + "/entries" }
        /// The folder of body files.
        var bodies: String { root + "/bodies" }
        /// The folder of files being written.
        var temporary: String { root + "/tmp" }
        /// The folder of entries that could not be read.
        var setAside: String { root + "/set-aside" }
    }

    /// Bodies of at most this many bytes are kept in the entry file itself.
    static let inlineBodyLimit = 64 * 1024

    /// The directory.
    let directory: URL
    /// The paths of its parts.
    let paths: Paths
    /// What open set aside, with reasons a person can read ("truncated: 12 of 340 bytes", "checksum mismatch", ...).
    private(set) var setAside: [SetAside]
    /// The pending records, in `sequence` order.
    private(set) var records: [OutboxRecord]
    /// Bytes on disk of the pending entries (entry files + body files), and their count = records.count.
    private(set) var totalBytes: Int64
    /// fsync calls made so far (for the benchmark: "fsyncs per request").
    private(set) var fsyncCount = 0
    /// The files of each pending record.
    private var placements: [UUID: Placement]
    /// The highest sequence seen or given.
    private var lastSequence: UInt64
    /// The open lock file; -1 once closed.
    private var lockDescriptor: Int32
    /// The open `entries` folder (to sync it); -1 once closed.
    private(set) var entriesDescriptor: Int32
    /// The open `bodies` folder (to sync it); -1 once closed.
    private(set) var bodiesDescriptor: Int32

    /// Opens (creating if needed) the directory.
    ///
    /// Takes an exclusive lock (`flock` on `<dir>/.lock`, `LOCK_EX | LOCK_NB`), so that a second
    /// store on the same directory — in this process or another — fails with
    /// ``NetworkError/Reason/directoryInUse``; removes stray temporary files (`<dir>/tmp/*`) and
    /// body files with no entry; reads every entry, and sets aside (moves to `<dir>/set-aside/`,
    /// never deletes, never crashes) truncated, zero-length, garbage or checksum-failing entries,
    /// unexpected files, and entries whose body file is missing or of the wrong size.
    /// - Parameter directory: The outbox's directory (a `file://` URL).
    /// - Throws: ``NetworkError/Kind/outbox`` with ``NetworkError/Reason/directoryInUse`` or
    ///   ``NetworkError/Reason/directoryUnusable``.
    init(directory: URL) throws(NetworkError) {
        let paths = Paths(root: directory.standardizedFileURL.path)
        try OutboxFiles.makeDirectory(paths.root)
        let lock = try Self.lock(paths)
        var entries: Int32 = -1
        var bodies: Int32 = -1
        let scan: OutboxScan
        do throws(NetworkError) {
            for folder in [paths.entries, paths.bodies, paths.temporary, paths.setAside] {
                try OutboxFiles.makeDirectory(folder)
            }
            entries = try OutboxFiles.openDirectory(paths.entries)
            bodies = try OutboxFiles.openDirectory(paths.bodies)
            scan = try OutboxScan(paths)
        } catch {
            for descriptor in [entries, bodies, lock] where descriptor >= 0 {
                OutboxFiles.closeDescriptor(descriptor)
            }
            throw error
        }
        self.directory = directory
        self.paths = paths
        self.lockDescriptor = lock
        self.entriesDescriptor = entries
        self.bodiesDescriptor = bodies
        self.records = scan.records
        self.placements = scan.placements
        self.setAside = scan.setAside
        self.totalBytes = scan.totalBytes
        self.lastSequence = scan.lastSequence
    }

    deinit {
        close()
    }

    /// Opens the lock file and locks it, without waiting.
    private static func lock(_ paths: Paths) throws(NetworkError) -> Int32 {
        let descriptor = OutboxFiles.retrying {
            open(paths.lock, O_RDWR | O_CREAT | O_CLOEXEC, OutboxFiles.fileMode)
        }
        guard descriptor >= 0 else {
            throw OutboxFiles.unusable("open the lock file", paths.lock, code: errno)
        }
        guard lockBriefly(descriptor) == 0 else {
            let code = errno
            OutboxFiles.closeDescriptor(descriptor)
            guard code == EWOULDBLOCK else { throw OutboxFiles.unusable("lock", paths.lock, code: code) }
            throw NetworkError(
                .outbox, failureReason: "The outbox directory \(paths.root) is open in another outbox.",
                details: .init(reason: .directoryInUse, fileURL: URL(fileURLWithPath: paths.root)),
                underlyingError: POSIXError(.EWOULDBLOCK))
        }
        return descriptor
    }

    /// Takes the lock without waiting for a holder, but tries again for up to 200 ms: a lock just
    /// let go of can stay held for a moment by a child process the app is starting on another
    /// thread (between its fork and its exec, the child shares the lock file's descriptor, which
    /// is closed only at the exec), and an outbox reopened at that moment found its directory in
    /// use. An outbox that really holds the directory still holds it after the retries.
    /// - Returns: 0, or -1 with `errno` set by the last attempt.
    private static func lockBriefly(_ descriptor: Int32) -> Int32 {
        for _ in 0..<10 {
            let result = OutboxFiles.retrying { flock(descriptor, LOCK_EX | LOCK_NB) }
            guard result != 0, errno == EWOULDBLOCK else { return result }
            usleep(20_000)
        }
        return OutboxFiles.retrying { flock(descriptor, LOCK_EX | LOCK_NB) }
    }

    /// Stores a new record durably; returns once it is on disk.
    ///
    /// Assigns `record.sequence` (the highest seen + 1) and sets `record.body`: `bodyData` up to
    /// 64 KiB goes ``OutboxRecord/Body/inline(_:)``, larger data is written to `bodies/<id>` and
    /// recorded ``OutboxRecord/Body/file(size:)``; `bodyFile` (a file the app gave) is copied to
    /// `bodies/<id>`. Order: body file to `tmp/`, fsync, rename into `bodies/`, fsync `bodies/`;
    /// entry to `tmp/`, fsync, rename into `entries/`; fsync `entries/`. Syncing `bodies/` before
    /// the entry is written makes the body's rename durable first, so an entry that survives a
    /// crash always finds its body: 2 fsyncs per add without a body file, 4 with one. Nothing is
    /// left behind on failure.
    /// - Parameters:
    ///   - record: The request; its `sequence` and `body` are replaced, its `id` must be new.
    ///   - bodyData: The body's bytes, or `nil`.
    ///   - bodyFile: A file to send as the body, or `nil` (at most one of the two).
    ///   - limits: The most requests and bytes (entry and body files) the outbox may hold.
    /// - Returns: The record as stored.
    /// - Throws: ``NetworkError/Kind/outbox`` (``NetworkError/Reason/full``,
    ///   ``NetworkError/Reason/directoryUnusable``) or ``NetworkError/Kind/fileOperationFailed``.
    func add(_ record: OutboxRecord, bodyData: Data?, bodyFile: URL?, limits: (count: Int, bytes: Int64))
        throws(NetworkError) -> OutboxRecord
    {
        precondition(bodyData == nil || bodyFile == nil, "An outbox request has one body: data or a file.")
        precondition(placements[record.id] == nil, "An outbox request's id is new.")
        guard lockDescriptor >= 0 else {
            throw NetworkError(
                .outbox, failureReason: "The outbox store of \(paths.root) is closed.",
                details: .init(reason: .directoryUnusable, fileURL: directory))
        }
        var record = record
        record.sequence = lastSequence + 1
        guard records.count < limits.count else {
            throw Self.full("it holds \(records.count) requests, its limit is \(limits.count)")
        }
        var source: BodySource?
        if let bodyFile { source = try BodySource(bodyFile) }
        defer { source?.finish() }
        var bodyContent: FileContent?
        if let source {
            bodyContent = .copy(source)
            record.body = .file(size: source.size)
        } else if let bodyData, bodyData.count > Self.inlineBodyLimit {
            bodyContent = .data(bodyData)
            record.body = .file(size: Int64(bodyData.count))
        } else {
            record.body = bodyData.map { .inline($0) } ?? OutboxRecord.Body.none
        }
        let bodyBytes: Int64 = if case .file(let size) = record.body { size } else { 0 }
        let entry = try Self.encode(record)
        let bytes = Int64(entry.count) + bodyBytes
        guard totalBytes + bytes <= limits.bytes else {
            throw Self.full(
                "it holds \(totalBytes) bytes, this request takes \(bytes), its limit is \(limits.bytes)")
        }
        let fileName = Self.entryFileName(sequence: record.sequence, id: record.id)
        try write(entry, fileName: fileName, body: bodyContent, id: record.id)
        records.append(record)
        placements[record.id] = Placement(fileName: fileName, bytes: bytes, hasBodyFile: bodyContent != nil)
        totalBytes += bytes
        lastSequence = record.sequence
        return record
    }

    /// A ``NetworkError/Reason/full`` error.
    private static func full(_ why: String) -> NetworkError {
        NetworkError(.outbox, failureReason: "The outbox is full: \(why).", details: .init(reason: .full))
    }

    /// The entry file of `record`, or an error when it cannot be one.
    private static func encode(_ record: OutboxRecord) throws(NetworkError) -> [UInt8] {
        let entry: [UInt8]
        do {
            entry = try OutboxEntryFile.encode(record)
        } catch {
            throw NetworkError(
                .outbox, failureReason: "The request could not be encoded for the outbox: \(error)",
                underlyingError: error)
        }
        guard Int64(entry.count) <= OutboxEntryFile.maximumSize else {
            throw full("the request's entry would be \(entry.count) bytes, more than an entry may hold")
        }
        return entry
    }

    /// The file of a `.file` body (to upload from).
    /// - Parameter id: The record's id.
    /// - Returns: `bodies/<id>` in the directory.
    func bodyFileURL(for id: UUID) -> URL {
        URL(fileURLWithPath: bodyPath(id))
    }

    /// The path of a record's body file.
    private func bodyPath(_ id: UUID) -> String {
        paths.bodies + "/" + id.uuidString
    }

    /// Removes a record that reached its end: entry file first (then it can never be sent again), then its body file.
    /// Unknown ids are ignored. Returns whether it was there.
    /// - Parameter id: The record's id.
    /// - Returns: Whether it was pending.
    @discardableResult func remove(_ id: UUID) -> Bool {
        guard let placement = placements.removeValue(forKey: id) else { return false }
        unlink(paths.entries + "/" + placement.fileName)
        if placement.hasBodyFile { unlink(bodyPath(id)) }
        records.removeAll { $0.id == id }
        totalBytes -= placement.bytes
        return true
    }

    /// Releases the lock (also on deinit).
    func close() {
        for descriptor in [entriesDescriptor, bodiesDescriptor, lockDescriptor] where descriptor >= 0 {
            OutboxFiles.closeDescriptor(descriptor)
        }
        (entriesDescriptor, bodiesDescriptor, lockDescriptor) = (-1, -1, -1)
    }

    /// Syncs an open file or folder to disk, counting the call.
    /// - Returns: 0, or the `errno` value.
    func synchronize(_ descriptor: Int32) -> Int32 {
        fsyncCount += 1
        return OutboxFiles.retrying { fsync(descriptor) } == 0 ? 0 : errno
    }
}

extension OutboxStore {
    /// The name of an entry file: `<sequence zero-padded to 20>-<uuid>.entry`.
    /// - Parameters:
    ///   - sequence: The record's sequence.
    ///   - id: The record's id.
    /// - Returns: The name.
    static func entryFileName(sequence: UInt64, id: UUID) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "-" + id.uuidString
            + ".entry"
    }

    /// The sequence and id an entry file's name holds, when it is one this store writes.
    /// - Parameter name: A name in `entries/`.
    /// - Returns: Its sequence and id, or `nil`.
    static func parseEntryFileName(_ name: String) -> (sequence: UInt64, id: UUID)? {
        let parts = name.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 20, name.hasSuffix(".entry"),
            let sequence = UInt64(parts[0]), let id = UUID(uuidString: String(parts[1].dropLast(6))),
            entryFileName(sequence: sequence, id: id) == name
        else { return nil }
        return (sequence, id)
    }
}
