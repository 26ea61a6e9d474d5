import ExampleSupport
import Foundation

/// The bytes of the demo server's `/files/SIZE` (version 0), regenerated here to check a download:
/// the little-endian 64-bit words `word(0), word(1), …` cut to the size, where `word(w)` is the
/// SplitMix64 finalizer of `w &+ 0x9E3779B97F4A7C15` (see Examples/README.md, "Transfers").
enum FileContent {
    /// The word at word index `index`.
    static func word(_ index: UInt64, version: UInt64 = 0) -> UInt64 {
        var z = index &+ (version &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Calls `body` with the content of a file of `size` bytes, 1 MiB at a time.
    static func chunks(size: Int64, version: UInt64 = 0, _ body: (UnsafeRawBufferPointer) throws -> Void)
        rethrows
    {
        let chunkWords = 1 << 17
        var words = [UInt64](repeating: 0, count: chunkWords)
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(chunkWords * 8), size - offset))
            let first = UInt64(offset) >> 3
            for index in 0..<((count + 7) / 8) {
                words[index] = word(first + UInt64(index), version: version).littleEndian
            }
            try words.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += Int64(count)
        }
    }

    /// The MD5 of the server's file of `size` bytes.
    static func md5(size: Int64, version: UInt64 = 0) -> String {
        var digest = MD5()
        chunks(size: size, version: version) { digest.update($0) }
        return digest.finalize()
    }

    /// Writes a file of `size` bytes of version `version`'s content and returns its MD5.
    static func write(size: Int64, version: UInt64, to url: URL) throws -> String {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw DemoFailure("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var digest = MD5()
        try chunks(size: size, version: version) { chunk in
            digest.update(chunk)
            try handle.write(contentsOf: Data(chunk))
        }
        return digest.finalize()
    }

    /// The MD5 and size of a file on disk, read 1 MiB at a time.
    static func md5(ofFile url: URL) throws -> (md5: String, size: Int64) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = MD5()
        var size: Int64 = 0
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            data.withUnsafeBytes { digest.update($0) }
            size += Int64(data.count)
        }
        return (digest.finalize(), size)
    }
}

/// Runs slow work (hashing, writing big files) on a GCD thread, keeping the main actor (which
/// draws) and the concurrency pool free.
func offMain<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
