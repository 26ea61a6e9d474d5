import Foundation

/// A fresh directory under the temporary directory for one test; `remove()` deletes it and all
/// it holds.
struct ScratchDirectory: Sendable {
    let url: URL

    init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory (nothing is created).
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `data` to a new file named `name` and returns its URL.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> URL {
        let file = file(name)
        try data.write(to: file)
        return file
    }

    /// The names of the files in the directory, sorted.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// `count` bytes that differ from position to position (a cheap pseudo-random sequence).
func patternedData(count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        for index in raw.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            raw[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
    }
    return data
}
