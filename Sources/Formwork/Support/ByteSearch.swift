import Foundation

/// Finding a byte sequence in a buffer: `memchr` for the first byte, `memcmp` for the rest.
enum ByteSearch {
    /// Whether `needle` occurs in `haystack`. An empty needle occurs everywhere.
    static func contains(_ needle: [UInt8], in haystack: Data) -> Bool {
        haystack.withUnsafeBytes { firstIndex(of: needle, in: $0) != nil }
    }

    /// The offset of the first occurrence of `needle` in `haystack`, or nil.
    static func firstIndex(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first else { return 0 }
        guard haystack.count >= needle.count, let base = haystack.baseAddress else { return nil }
        let lastStart = haystack.count - needle.count
        return needle.withUnsafeBytes { pattern -> Int? in
            guard let patternBase = pattern.baseAddress else { return nil }
            var start = 0
            while start <= lastStart {
                guard let hit = memchr(base + start, Int32(first), lastStart - start + 1) else { return nil }
                let index = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + index, patternBase, pattern.count) == 0 {
                    return index
                }
                start = index + 1
            }
            return nil
        }
    }
}

/// Looks for a byte sequence in a stream of chunks, including occurrences that straddle two
/// chunks, while keeping only `needle.count - 1` bytes between calls.
struct StreamingByteSearch {
    let needle: [UInt8]
    /// The end of the bytes seen so far, shorter than the needle.
    private var tail: [UInt8] = []

    init(needle: [UInt8]) {
        self.needle = needle
    }

    /// Feeds the next chunk; `true` when the needle ends within it.
    mutating func feed(_ chunk: Data) -> Bool {
        guard !needle.isEmpty else { return true }
        let keep = needle.count - 1
        if !tail.isEmpty {
            // Only the first `keep` bytes of the chunk can complete a match that began in the tail.
            let window = tail + chunk.prefix(keep)
            if window.withUnsafeBytes({ ByteSearch.firstIndex(of: needle, in: $0) }) != nil {
                return true
            }
        }
        if ByteSearch.contains(needle, in: chunk) {
            return true
        }
        if chunk.count >= keep {
            tail = Array(chunk.suffix(keep))
        } else {
            tail = Array((tail + chunk).suffix(keep))
        }
        return false
    }
}
