import Foundation

/// The on-disk form of one pending request, made to be recognised when damaged.
///
/// A fixed 16-byte header, then the payload: the ``OutboxRecord`` as JSON.
///
/// | bytes | field |
/// |---|---|
/// | 4 | magic `FWOB` |
/// | 2 | format version (big-endian), ``version`` |
/// | 2 | reserved, 0 |
/// | 4 | payload length (big-endian) |
/// | 4 | CRC-32 of the payload (big-endian) |
///
/// A file is read only when its size is exactly the header plus the payload length, its checksum
/// matches and its payload decodes; anything else (a torn write, a truncated or corrupted file,
/// another format version) reads as a ``Damage`` with words a person can read, and the store sets
/// the file aside.
enum OutboxEntryFile {
    /// The first bytes of every entry file.
    static let magic: [UInt8] = Array("FWOB".utf8)
    /// The format version written; files of another version are set aside.
    static let version: UInt16 = 1
    /// The size of the fixed header.
    static let headerSize = 16
    /// The largest entry file read or written (a body above 64 KiB goes to its own file, so a
    /// larger entry is not one the store wrote).
    static let maximumSize: Int64 = 4 * 1024 * 1024

    /// Why an entry file could not be read, in words for a log: "truncated: 12 of 340 bytes".
    struct Damage: Error, Equatable {
        /// The words.
        var reason: String
    }

    /// The bytes of an entry file.
    /// - Parameter record: The record, its sequence and body already set.
    /// - Returns: The file's bytes.
    /// - Throws: The encoder's error (a record of strings, numbers and dates does not fail).
    static func encode(_ record: OutboxRecord) throws -> [UInt8] {
        let payload = try JSONEncoder().encode(record)
        var file: [UInt8] = []
        file.reserveCapacity(headerSize + payload.count)
        file += magic
        append(UInt64(version), bytes: 2, to: &file)
        append(0, bytes: 2, to: &file)
        append(UInt64(payload.count), bytes: 4, to: &file)
        append(UInt64(CRC32.checksum(payload)), bytes: 4, to: &file)
        file += payload
        return file
    }

    /// Reads an entry file.
    /// - Parameter bytes: The file's bytes, whatever they are.
    /// - Returns: The record, or what is wrong with the file.
    static func decode(_ bytes: [UInt8]) -> Result<OutboxRecord, Damage> {
        guard !bytes.isEmpty else { return .failure(Damage(reason: "zero-length file")) }
        guard bytes.starts(with: magic.prefix(bytes.count)) else {
            return .failure(Damage(reason: "not an outbox entry (no FWOB magic)"))
        }
        guard bytes.count >= 12 else {
            return .failure(
                Damage(reason: "truncated: \(bytes.count) bytes, shorter than the \(headerSize)-byte header"))
        }
        let fileVersion = read(bytes, at: 4, count: 2)
        guard fileVersion == UInt64(version) else {
            return .failure(Damage(reason: "unsupported format version \(fileVersion)"))
        }
        guard read(bytes, at: 6, count: 2) == 0 else {
            return .failure(Damage(reason: "garbage: reserved header bytes are not zero"))
        }
        let expected = UInt64(headerSize) + read(bytes, at: 8, count: 4)
        guard UInt64(bytes.count) >= expected else {
            return .failure(Damage(reason: "truncated: \(bytes.count) of \(expected) bytes"))
        }
        guard UInt64(bytes.count) == expected else {
            return .failure(
                Damage(reason: "longer than its header says: \(bytes.count) of \(expected) bytes"))
        }
        let payload = bytes[headerSize...]
        guard CRC32.checksum(payload) == UInt32(read(bytes, at: 12, count: 4)) else {
            return .failure(Damage(reason: "checksum mismatch"))
        }
        do {
            return .success(try JSONDecoder().decode(OutboxRecord.self, from: Data(payload)))
        } catch {
            return .failure(Damage(reason: "the record does not decode: \(error)"))
        }
    }

    private static func append(_ value: UInt64, bytes: Int, to file: inout [UInt8]) {
        for index in (0..<bytes).reversed() {
            file.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8)))
        }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
