import Foundation

/// What opening an outbox directory found: the pending records, and what it set aside.
///
/// Made once, under the store's lock: removes `tmp/*` (writes a crash interrupted), reads every
/// entry file, moves each one that cannot be sent whole to `set-aside/` with the reason (its body
/// file beside it), then removes the body files no pending entry names.
struct OutboxScan {
    /// The pending records, in sequence order.
    var records: [OutboxRecord] = []
    /// The files of each pending record.
    var placements: [UUID: OutboxStore.Placement] = [:]
    /// The entries moved aside.
    var setAside: [OutboxStore.SetAside] = []
    /// The bytes of the pending records' files.
    var totalBytes: Int64 = 0
    /// The highest sequence in any entry file's name, set aside or not.
    var lastSequence: UInt64 = 0

    /// An entry file that cannot be sent.
    private struct Rejected {
        var fileName: String
        var reason: String
        /// The id its name holds, if it is a well-formed name.
        var id: UUID?
    }

    /// Scans the directory.
    /// - Parameter paths: The directory's parts (they exist).
    /// - Throws: ``NetworkError/Reason/directoryUnusable`` when a folder cannot be read.
    init(_ paths: OutboxStore.Paths) throws(NetworkError) {
        for name in try OutboxFiles.names(in: paths.temporary) {
            unlink(paths.temporary + "/" + name)
        }
        var rejected: [Rejected] = []
        // Zero-padded sequences: name order is sequence order.
        for name in try OutboxFiles.names(in: paths.entries).sorted() {
            let parsed = OutboxStore.parseEntryFileName(name)
            if let parsed { lastSequence = max(lastSequence, parsed.sequence) }
            switch read(name, parsed: parsed, paths: paths) {
            case .success(let (record, placement)):
                records.append(record)
                placements[record.id] = placement
                totalBytes += placement.bytes
            case .failure(let damage):
                rejected.append(Rejected(fileName: name, reason: damage.reason, id: parsed?.id))
            }
        }
        for entry in rejected {
            // A rejected entry's body goes with it, unless a pending entry has the same id.
            let bodyID = entry.id.flatMap { placements[$0] == nil ? $0 : nil }
            setAside.append(
                Self.moveAside(entry.fileName, reason: entry.reason, bodyID: bodyID, paths: paths))
        }
        for name in try OutboxFiles.names(in: paths.bodies) {
            let id = UUID(uuidString: name)
            if id?.uuidString != name || id.flatMap({ placements[$0]?.hasBodyFile }) != true {
                unlink(paths.bodies + "/" + name)
            }
        }
    }

    /// Reads one entry file and checks it against its name and its body file.
    private func read(_ name: String, parsed: (sequence: UInt64, id: UUID)?, paths: OutboxStore.Paths)
        -> Result<(OutboxRecord, OutboxStore.Placement), OutboxEntryFile.Damage>
    {
        guard let parsed else { return .failure(.init(reason: "unexpected file name")) }
        let path = paths.entries + "/" + name
        guard case .file = OutboxFiles.kind(of: path) else {
            return .failure(.init(reason: "not a regular file"))
        }
        let bytes: [UInt8]
        switch OutboxFiles.readWhole(path, limit: OutboxEntryFile.maximumSize) {
        case .bytes(let read): bytes = read
        case .tooLarge(let size): return .failure(.init(reason: "too large for an entry: \(size) bytes"))
        case .failed(let code): return .failure(.init(reason: "unreadable: \(OutboxFiles.text(of: code))"))
        }
        let record: OutboxRecord
        switch OutboxEntryFile.decode(bytes) {
        case .success(let decoded): record = decoded
        case .failure(let damage): return .failure(damage)
        }
        guard record.id == parsed.id, record.sequence == parsed.sequence else {
            return .failure(
                .init(reason: "its name does not match its content (\(record.sequence), \(record.id))"))
        }
        guard placements[record.id] == nil else {
            return .failure(.init(reason: "the same id as an earlier entry"))
        }
        var bytesOnDisk = Int64(bytes.count)
        guard case .file(let size) = record.body else {
            return .success((record, .init(fileName: name, bytes: bytesOnDisk, hasBodyFile: false)))
        }
        switch OutboxFiles.kind(of: paths.bodies + "/" + record.id.uuidString) {
        case .nothing:
            return .failure(.init(reason: "body file missing"))
        case .file(let found) where found != size:
            return .failure(.init(reason: "body file is \(found) bytes, expected \(size)"))
        case .directory, .other:
            return .failure(.init(reason: "body file is not a regular file"))
        case .file:
            bytesOnDisk += size
            return .success((record, .init(fileName: name, bytes: bytesOnDisk, hasBodyFile: true)))
        }
    }

    /// Moves an entry (and its body file) into `set-aside/`, under a name not taken there.
    private static func moveAside(_ name: String, reason: String, bodyID: UUID?, paths: OutboxStore.Paths)
        -> OutboxStore.SetAside
    {
        let source = paths.entries + "/" + name
        var target = paths.setAside + "/" + name
        var attempt = 1
        while OutboxFiles.kind(of: target) != .nothing || OutboxFiles.kind(of: target + ".body") != .nothing {
            attempt += 1
            target = paths.setAside + "/" + name + "." + String(attempt)
        }
        guard OutboxFiles.retrying({ rename(source, target) }) == 0 else {
            let words = OutboxFiles.text(of: errno)
            return .init(
                fileName: name, reason: reason + "; could not be moved aside: " + words,
                movedTo: URL(fileURLWithPath: source))
        }
        if let bodyID {
            let body = paths.bodies + "/" + bodyID.uuidString
            if OutboxFiles.kind(of: body) != .nothing {
                _ = OutboxFiles.retrying { rename(body, target + ".body") }
            }
        }
        return .init(fileName: name, reason: reason, movedTo: URL(fileURLWithPath: target))
    }
}
