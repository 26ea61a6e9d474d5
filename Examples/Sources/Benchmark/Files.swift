import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo server's `/files` (and `/static`) content, regenerated to check downloads byte for byte, and the
/// benchmark's scratch files.
///
/// The content is the little-endian bytes of the words `word(0), word(1), …` (see the server's
/// `DemoFileContent` and the Examples README); version 0 only here.
enum Files {
    /// The word at word index `index` of version 0.
    @inline(__always)
    static func word(_ index: UInt64) -> UInt64 {
        var z = index &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The file's bytes from `offset` (a multiple of 8) into `buffer`.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, from offset: Int64) {
        precondition(offset % 8 == 0)
        var index = 0
        var wordIndex = UInt64(offset / 8)
        while buffer.count - index >= 8 {
            buffer.storeBytes(of: word(wordIndex).littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
            wordIndex += 1
        }
        var last = word(wordIndex).littleEndian
        withUnsafeBytes(of: &last) { bytes in
            for byte in 0..<(buffer.count - index) { buffer[index + byte] = bytes[byte] }
        }
    }

    /// The path the download phases fetch: `/static/{size}`, the demo server's file on disk sent
    /// with `sendfile` (the same bytes as `/files/{size}`, which the server generates as it sends
    /// them and so paces every client at the generator's speed).
    static func downloadPath(size: Int64) -> String {
        "/static/\(size)"
    }

    /// Sends `HEAD` for ``downloadPath(size:)`` once, so that the demo server writes the file
    /// before any download is timed (any other server just answers it).
    /// - Parameters:
    ///   - base: The server's base URL.
    ///   - size: The file's length.
    /// - Throws: ``BenchmarkFailure`` when the server does not answer `200` with that length.
    static func prepareDownload(base: String, size: Int64) async throws {
        let address = base + downloadPath(size: size)
        guard let url = URL(string: address) else { throw BenchmarkFailure("bad URL \(address)") }
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"
        request.timeoutInterval = 300
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        guard http?.statusCode == 200, http?.expectedContentLength == size else {
            throw BenchmarkFailure(
                "HEAD \(address): status \(http?.statusCode ?? 0), length \(http?.expectedContentLength ?? -1)"
            )
        }
    }

    /// How much is read or written at a time.
    static let chunkSize = 4 << 20

    /// `true` when the file at `url` is exactly the server's `/files/{size}` (checked in chunks).
    static func matchesServerContent(_ url: URL, size: Int64) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var expected = [UInt8](repeating: 0, count: chunkSize)
        var offset: Int64 = 0
        while true {
            guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else { break }
            guard offset + Int64(chunk.count) <= size else { return false }
            let equal = expected.withUnsafeMutableBytes { buffer in
                let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<chunk.count])
                fill(slice, from: offset)
                return chunk.withUnsafeBytes { memcmp($0.baseAddress!, slice.baseAddress!, chunk.count) == 0 }
            }
            guard equal else { return false }
            offset += Int64(chunk.count)
        }
        return offset == size
    }

    /// Writes `size` bytes of the server's content to a new file (a source to upload).
    static func writeServerContent(to url: URL, size: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = Data(count: chunkSize)
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(chunkSize), size - offset))
            buffer.count = count
            buffer.withUnsafeMutableBytes { fill($0, from: offset) }
            try handle.write(contentsOf: buffer)
            offset += Int64(count)
        }
    }

    /// The size of the file at `url`, or -1.
    static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// A new path for a scratch file in the benchmark's directory (nothing is created).
    static func scratch(_ name: String, in directory: URL) -> URL {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    }

    /// The download temp files (`CFNetworkDownload_*`) in the temporary directory now.
    /// corelibs URLSession never deletes the ones of failed downloads: the benchmark removes
    /// those its raw downloads left.
    static func downloadTempFiles() -> Set<String> {
        let directory = FileManager.default.temporaryDirectory.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(names.filter { $0.hasPrefix("CFNetworkDownload_") })
    }

    /// Removes the download temp files that appeared since `before`.
    static func removeDownloadTempFiles(except before: Set<String>) {
        let directory = FileManager.default.temporaryDirectory
        for name in downloadTempFiles().subtracting(before) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
