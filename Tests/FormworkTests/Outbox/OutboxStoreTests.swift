import Foundation
import Testing

@testable import Formwork

@Suite("Outbox store")
struct OutboxStoreTests {
    /// No limit worth the name.
    let roomy: (count: Int, bytes: Int64) = (count: 1_000, bytes: .max)

    /// A pending request; the store sets its sequence and body.
    private func record(_ tag: String, lane: String = "default") -> OutboxRecord {
        OutboxRecord(
            id: UUID(), sequence: 0, lane: lane, tag: tag, idempotencyKey: UUID().uuidString, method: "POST",
            url: "https://api.example.com/comments?post=\(tag)",
            headers: [
                .init(name: "Content-Type", value: "application/json"), .init(name: "X-Tag", value: tag),
            ],
            body: .none, enqueuedAt: Date(timeIntervalSince1970: 1_700_000_000.125),
            expiresAt: tag.hasPrefix("x") ? Date(timeIntervalSince1970: 1_800_000_000.5) : nil)
    }

    /// The names in one of the store's folders, sorted.
    private func names(_ folder: String, in scratch: ScratchDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.file(folder).path).sorted()
    }

    /// The permission bits of a path.
    private func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    @Test("An entry file reads back; every truncation and every flipped byte is recognised, with a reason")
    func entryFileIntegrity() throws {
        var original = record("x1")
        original.sequence = 7
        original.body = .inline(Data("{\"text\":\"hello\"}".utf8))
        let file = try OutboxEntryFile.encode(original)
        #expect(try OutboxEntryFile.decode(file).get() == original)
        for length in 0..<file.count {
            let result = OutboxEntryFile.decode(Array(file.prefix(length)))
            #expect((try? result.get()) == nil, "truncated to \(length)")
        }
        for index in 0..<file.count {
            var damaged = file
            damaged[index] ^= 0x01
            #expect((try? OutboxEntryFile.decode(damaged).get()) == nil, "byte \(index) flipped")
        }
        #expect((try? OutboxEntryFile.decode(file + [0]).get()) == nil)
        #expect(OutboxEntryFile.decode([]) == .failure(.init(reason: "zero-length file")))
        #expect(
            OutboxEntryFile.decode(Array(file.prefix(40)))
                == .failure(.init(reason: "truncated: 40 of \(file.count) bytes")))
    }

    @Test("Records survive a reopen in order, with inline, large-data and copied-file bodies intact")
    func roundTrip() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let directory = scratch.file("box")
        let small = Data("{\"text\":\"hi\"}".utf8)
        let large = patternedData(count: 200_000, seed: 3)
        let fileBody = patternedData(count: 100_000, seed: 4)
        let appFile = try scratch.write(fileBody, to: "photo.jpg")
        let store = try OutboxStore(directory: directory)
        var added: [OutboxRecord] = []
        var fsyncs: [Int] = []
        for (tag, data, file) in [
            ("none", nil, nil), ("x-small", small, nil), ("large", large, nil), ("file", nil, appFile),
        ] {
            let before = store.fsyncCount
            added.append(try store.add(record(tag), bodyData: data, bodyFile: file, limits: roomy))
            fsyncs.append(store.fsyncCount - before)
        }
        #expect(added.map(\.sequence) == [1, 2, 3, 4])
        #expect(added.map(\.body) == [.none, .inline(small), .file(size: 200_000), .file(size: 100_000)])
        #expect(fsyncs == [2, 2, 4, 4])
        #expect(store.records == added)
        #expect(try names("box/tmp", in: scratch).isEmpty)
        #expect(try mode(of: directory) == 0o700)
        #expect(try mode(of: directory.appendingPathComponent("entries")) == 0o700)
        let entryName = try #require(try names("box/entries", in: scratch).first)
        #expect(try mode(of: directory.appendingPathComponent("entries/\(entryName)")) == 0o600)
        let totalBytes = store.totalBytes
        #expect(totalBytes > 300_000)
        store.close()

        let reopened = try OutboxStore(directory: directory)
        #expect(reopened.records == added)
        #expect(reopened.setAside.isEmpty)
        #expect(reopened.totalBytes == totalBytes)
        #expect(try Data(contentsOf: reopened.bodyFileURL(for: added[2].id)) == large)
        #expect(try Data(contentsOf: reopened.bodyFileURL(for: added[3].id)) == fileBody)
        #expect(try mode(of: reopened.bodyFileURL(for: added[3].id)) == 0o600)
        // The next sequence follows the highest on disk.
        #expect(try reopened.add(record("next"), bodyData: nil, bodyFile: nil, limits: roomy).sequence == 5)
        #expect(try names("box/tmp", in: scratch).isEmpty)
    }

    @Test("Removing drops the entry and its body file; an unknown id is ignored")
    func remove() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let store = try OutboxStore(directory: scratch.url)
        let first = try store.add(record("a"), bodyData: Data("a".utf8), bodyFile: nil, limits: roomy)
        let bytesOfFirst = store.totalBytes
        let second = try store.add(
            record("b"), bodyData: patternedData(count: 70_000), bodyFile: nil, limits: roomy)
        let third = try store.add(record("c"), bodyData: nil, bodyFile: nil, limits: roomy)
        #expect(try names("bodies", in: scratch) == [second.id.uuidString])
        let before = store.totalBytes
        #expect(store.remove(second.id))
        #expect(!store.remove(second.id))
        #expect(!store.remove(UUID()))
        #expect(store.records == [first, third])
        #expect(try names("bodies", in: scratch).isEmpty)
        #expect(try names("entries", in: scratch).count == 2)
        #expect(store.totalBytes < before - 70_000)
        #expect(store.remove(third.id))
        #expect(store.totalBytes == bytesOfFirst)
        store.close()
        let reopened = try OutboxStore(directory: scratch.url)
        #expect(reopened.records == [first])
        #expect(reopened.totalBytes == bytesOfFirst)
    }

    @Test("A second store on the same directory fails with directoryInUse until the first is closed or gone")
    func lock() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let first = try OutboxStore(directory: scratch.url)
        let error = #expect(throws: NetworkError.self) { try OutboxStore(directory: scratch.url) }
        #expect(error?.kind == .outbox)
        #expect(error?.reason == .directoryInUse)
        first.close()
        var second: OutboxStore? = try OutboxStore(directory: scratch.url)
        #expect(second?.records == [])
        #expect(throws: NetworkError.self) { try OutboxStore(directory: scratch.url) }
        second = nil  // deinit releases the lock too
        #expect(try OutboxStore(directory: scratch.url).records == [])
    }

    @Test("A directory that cannot be made fails with directoryUnusable and the system's words")
    func unusableDirectory() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let file = try scratch.write(Data("x".utf8), to: "plain-file")
        let error = #expect(throws: NetworkError.self) {
            try OutboxStore(directory: file.appendingPathComponent("box"))
        }
        #expect(error?.kind == .outbox)
        #expect(error?.reason == .directoryUnusable)
        #expect(error?.underlyingError is POSIXError)
        #expect(error?.failureReason.contains("Not a directory") == true)
    }

    @Test("Past the limit of requests or bytes, or with a missing file, add fails and leaves nothing behind")
    func limits() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let store = try OutboxStore(directory: scratch.url)
        let kept = try store.add(record("a"), bodyData: nil, bodyFile: nil, limits: (count: 2, bytes: .max))
        _ = try store.add(record("b"), bodyData: nil, bodyFile: nil, limits: (count: 2, bytes: .max))
        let byCount = #expect(throws: NetworkError.self) {
            try store.add(record("c"), bodyData: nil, bodyFile: nil, limits: (count: 2, bytes: .max))
        }
        #expect(byCount?.kind == .outbox)
        #expect(byCount?.reason == .full)
        let bytesLimit = store.totalBytes + 50_000
        let byBytes = #expect(throws: NetworkError.self) {
            try store.add(
                record("d"), bodyData: patternedData(count: 80_000), bodyFile: nil,
                limits: (count: 10, bytes: bytesLimit))
        }
        #expect(byBytes?.reason == .full)
        let appFile = try scratch.write(patternedData(count: 80_000), to: "big.bin")
        let byFileBytes = #expect(throws: NetworkError.self) {
            try store.add(
                record("e"), bodyData: nil, bodyFile: appFile, limits: (count: 10, bytes: bytesLimit))
        }
        #expect(byFileBytes?.reason == .full)
        let missing = #expect(throws: NetworkError.self) {
            try store.add(
                record("f"), bodyData: nil, bodyFile: scratch.file("gone.bin"),
                limits: (count: 10, bytes: .max))
        }
        #expect(missing?.kind == .fileOperationFailed)
        #expect(missing?.reason == .fileNotFound)
        let directory = #expect(throws: NetworkError.self) {
            try store.add(record("g"), bodyData: nil, bodyFile: scratch.url, limits: (count: 10, bytes: .max))
        }
        #expect(directory?.reason == .fileIsDirectory)
        #expect(store.records.count == 2)
        #expect(try names("entries", in: scratch).count == 2)
        #expect(try names("bodies", in: scratch).isEmpty)
        #expect(try names("tmp", in: scratch).isEmpty)
        // A failed add uses no sequence: the next one follows the last stored.
        _ = store.remove(kept.id)
        #expect(try store.add(record("h"), bodyData: nil, bodyFile: nil, limits: roomy).sequence == 3)
    }

    @Test(
        "A damaged directory: each bad entry is set aside with its reason, strays are removed, the rest stays in order"
    )
    func corruptDirectory() throws {
        let scratch = try ScratchDirectory("outbox")
        defer { scratch.remove() }
        let store = try OutboxStore(directory: scratch.url)
        let appFile = try scratch.write(patternedData(count: 5_000, seed: 9), to: "upload.bin")
        var added: [String: OutboxRecord] = [:]
        for tag in [
            "good1", "truncated", "zero", "garbage", "flipped", "good2", "noBody", "shortBody", "good3",
        ] {
            let file = ["noBody", "shortBody", "good3"].contains(tag) ? appFile : nil
            let data = file == nil ? Data("{\"tag\":\"\(tag)\"}".utf8) : nil
            added[tag] = try store.add(record(tag), bodyData: data, bodyFile: file, limits: roomy)
        }
        store.close()
        func entry(_ tag: String) throws -> URL {
            let stored = try #require(added[tag])
            return scratch.file(
                "entries/" + OutboxStore.entryFileName(sequence: stored.sequence, id: stored.id))
        }
        func body(_ tag: String) throws -> URL {
            scratch.file("bodies/" + (try #require(added[tag])).id.uuidString)
        }
        let truncatedBytes = try Data(contentsOf: entry("truncated"))
        try truncatedBytes.prefix(truncatedBytes.count - 10).write(to: entry("truncated"))
        try Data().write(to: entry("zero"))
        try patternedData(count: 300, seed: 5).write(to: entry("garbage"))
        var flipped = try Data(contentsOf: entry("flipped"))
        flipped[flipped.count - 3] ^= 0x20
        try flipped.write(to: entry("flipped"))
        try FileManager.default.removeItem(at: body("noBody"))
        try Data(count: 10).write(to: body("shortBody"))
        try scratch.write(Data("half".utf8), to: "tmp/\(UUID().uuidString).entry")
        let orphan = UUID().uuidString
        try scratch.write(Data("orphan".utf8), to: "bodies/\(orphan)")
        try scratch.write(Data("note".utf8), to: "entries/notes.txt")

        let reopened = try OutboxStore(directory: scratch.url)
        let good = try ["good1", "good2", "good3"].map { try #require(added[$0]) }
        #expect(reopened.records == good)
        var reasons: [String: String] = [:]
        for item in reopened.setAside {
            reasons[item.fileName] = item.reason
            #expect(item.movedTo.deletingLastPathComponent().lastPathComponent == "set-aside")
            #expect(FileManager.default.fileExists(atPath: item.movedTo.path), "\(item.fileName) moved")
        }
        func reason(_ tag: String) throws -> String? {
            reasons[try entry(tag).lastPathComponent]
        }
        #expect(reopened.setAside.count == 7)
        #expect(
            try reason("truncated")
                == "truncated: \(truncatedBytes.count - 10) of \(truncatedBytes.count) bytes")
        #expect(try reason("zero") == "zero-length file")
        #expect(try reason("garbage") == "not an outbox entry (no FWOB magic)")
        #expect(try reason("flipped") == "checksum mismatch")
        #expect(try reason("noBody") == "body file missing")
        #expect(try reason("shortBody") == "body file is 10 bytes, expected 5000")
        #expect(reasons["notes.txt"] == "unexpected file name")
        // The short body went aside with its entry; strays are gone; the good ones' files remain.
        let shortBodyAside = try scratch.file("set-aside/" + entry("shortBody").lastPathComponent + ".body")
        #expect(FileManager.default.fileExists(atPath: shortBodyAside.path))
        #expect(try names("tmp", in: scratch).isEmpty)
        #expect(try names("bodies", in: scratch) == [try #require(added["good3"]).id.uuidString])
        #expect(
            try names("entries", in: scratch)
                == good.map { OutboxStore.entryFileName(sequence: $0.sequence, id: $0.id) })
        #expect(try names("set-aside", in: scratch).count == 8)
        reopened.close()

        // Opening again finds nothing more to set aside and the same records.
        let again = try OutboxStore(directory: scratch.url)
        #expect(again.setAside.isEmpty)
        #expect(again.records == good)
        #expect(try Data(contentsOf: again.bodyFileURL(for: good[2].id)) == Data(contentsOf: appFile))
    }
}
