import Foundation

/// The on-disk form of one cache entry, made to be recognised when damaged.
///
/// A fixed 28-byte header, then the key (UTF-8), the metadata (JSON) and the body:
///
/// | bytes | field |
/// |---|---|
/// | 4 | magic `FWCE` |
/// | 2 | format version (big-endian), ``version`` |
/// | 2 | reserved, 0 |
/// | 4 | key length |
/// | 4 | metadata length |
/// | 8 | body length |
/// | 4 | CRC-32 of everything after the header |
///
/// A file is read only when its size is exactly the header plus the three lengths, its checksum
/// matches, its metadata decodes and its key is the one asked for; anything else (a torn write,
/// a truncated or corrupted file, another format version) reads as `nil`, and the cache deletes it.
enum CacheEntryFile {
    /// The first bytes of every entry file.
    static let magic: [UInt8] = Array("FWCE".utf8)
    /// The format version written; files of another version are dropped.
    static let version: UInt16 = 1
    /// The size of the fixed header.
    static let headerSize = 28

    /// What the metadata part holds: the entry without its body.
    private struct Metadata: Codable {
        var url: String
        var statusCode: Int
        var headers: [[String]]
        var requestTime: Double
        var responseTime: Double
        var vary: [CacheVary.Value]
    }

    /// The bytes of an entry file.
    /// - Parameters:
    ///   - key: The entry's key (its URL key and credential hash), checked on read.
    ///   - entry: The entry.
    /// - Returns: The file's bytes.
    static func encode(key: String, entry: CacheEntry) -> Data {
        let metadata = Metadata(
            url: entry.url, statusCode: entry.statusCode, headers: entry.headers.map { [$0.name, $0.value] },
            requestTime: entry.requestTime.timeIntervalSince1970,
            responseTime: entry.responseTime.timeIntervalSince1970, vary: entry.vary)
        // Encoding plain strings and numbers cannot fail; an empty metadata part would be dropped on read.
        let metadataBytes = (try? JSONEncoder().encode(metadata)) ?? Data()
        let keyBytes = Data(key.utf8)
        var checksum = CRC32.checksum(keyBytes)
        checksum = CRC32.checksum(metadataBytes, continuing: checksum)
        checksum = CRC32.checksum(entry.body, continuing: checksum)
        var file = Data(capacity: headerSize + keyBytes.count + metadataBytes.count + entry.body.count)
        file.append(contentsOf: magic)
        append(UInt64(version), bytes: 2, to: &file)
        append(0, bytes: 2, to: &file)
        append(UInt64(keyBytes.count), bytes: 4, to: &file)
        append(UInt64(metadataBytes.count), bytes: 4, to: &file)
        append(UInt64(entry.body.count), bytes: 8, to: &file)
        append(UInt64(checksum), bytes: 4, to: &file)
        file.append(keyBytes)
        file.append(metadataBytes)
        file.append(entry.body)
        return file
    }

    /// Reads an entry file.
    /// - Parameters:
    ///   - file: The file's bytes, whatever they are.
    ///   - expectedKey: The key the entry must have; `nil` accepts any.
    /// - Returns: The key and entry, or `nil` when the bytes are not a whole, intact entry file.
    static func decode(_ file: Data, expectedKey: String? = nil) -> (key: String, entry: CacheEntry)? {
        let bytes = [UInt8](file)
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == magic,
            read(bytes, at: 4, count: 2) == UInt64(version), read(bytes, at: 6, count: 2) == 0
        else { return nil }
        let keyLength = read(bytes, at: 8, count: 4)
        let metadataLength = read(bytes, at: 12, count: 4)
        let bodyLength = read(bytes, at: 16, count: 8)
        let checksum = UInt32(read(bytes, at: 24, count: 4))
        // Lengths are compared one by one, so that no sum can overflow.
        let available = UInt64(bytes.count - headerSize)
        guard keyLength <= available, metadataLength <= available - keyLength,
            bodyLength == available - keyLength - metadataLength
        else { return nil }
        let payload = bytes[headerSize...]
        guard CRC32.checksum(payload) == checksum else { return nil }
        let keyEnd = headerSize + Int(keyLength)
        let metadataEnd = keyEnd + Int(metadataLength)
        guard isValidUTF8(bytes[headerSize..<keyEnd]),
            case let key = String(decoding: bytes[headerSize..<keyEnd], as: UTF8.self),
            expectedKey == nil || key == expectedKey,
            let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(bytes[keyEnd..<metadataEnd])),
            metadata.headers.allSatisfy({ $0.count == 2 }),
            metadata.requestTime.isFinite, metadata.responseTime.isFinite
        else { return nil }
        let entry = CacheEntry(
            url: metadata.url, statusCode: metadata.statusCode,
            headers: HTTPHeaders(metadata.headers.map { HTTPHeader(name: $0[0], value: $0[1]) }),
            body: Data(bytes[metadataEnd...]),
            requestTime: Date(timeIntervalSince1970: metadata.requestTime),
            responseTime: Date(timeIntervalSince1970: metadata.responseTime), vary: metadata.vary)
        return (key, entry)
    }

    private static func append(_ value: UInt64, bytes: Int, to data: inout Data) {
        for index in (0..<bytes).reversed() {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8)))
        }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
