import Foundation

/// The content the demo server sends for `GET /files/{size}?version=V`, regenerated locally so a
/// test can check a download byte for byte (the server's copy is
/// `Examples/Sources/DemoServer/Transfers/DemoFileContent.swift`; `TransferServerTests` proves
/// they agree).
///
/// The file is the little-endian bytes of the 64-bit words `word(0), word(1), …`, cut to `size`,
/// with `word(w)` the SplitMix64 finalizer of `w &+ (V &+ 1) &* 0x9E3779B97F4A7C15`. So
/// `byte(i) = UInt8(truncatingIfNeeded: word(i >> 3) >> ((i & 7) * 8))`, the bytes of a range do
/// not depend on the file's size, and every version differs everywhere.
public enum DemoFileContent {
    /// The word at word index `index` (bytes `8 * index ..< 8 * index + 8`).
    public static func word(_ index: UInt64, version: UInt64 = 0) -> UInt64 {
        var z = index &+ (version &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The byte at `offset`.
    public static func byte(at offset: Int64, version: UInt64 = 0) -> UInt8 {
        let position = UInt64(offset)
        return UInt8(truncatingIfNeeded: word(position >> 3, version: version) >> ((position & 7) * 8))
    }

    /// The whole file of `size` bytes.
    public static func bytes(size: Int64, version: UInt64 = 0) -> Data {
        bytes(in: 0..<size, version: version)
    }

    /// The bytes at the offsets in `range`.
    public static func bytes(in range: Range<Int64>, version: UInt64 = 0) -> Data {
        // Whole words from the word holding the first byte, then cut to the range.
        let firstWord = UInt64(range.lowerBound) >> 3
        let lead = Int(UInt64(range.lowerBound) & 7)
        let wordCount = (lead + range.count + 7) / 8
        var data = Data(count: wordCount * 8)
        data.withUnsafeMutableBytes { raw in
            for index in 0..<wordCount {
                let value = word(firstWord + UInt64(index), version: version).littleEndian
                raw.storeBytes(of: value, toByteOffset: index * 8, as: UInt64.self)
            }
        }
        return data.subdata(in: lead..<(lead + range.count))
    }
}

/// Runs CPU- or I/O-heavy test work (generating large files, hashing) on a GCD queue rather than
/// the Swift concurrency pool, whose threads (one per core) must stay free for timers.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
