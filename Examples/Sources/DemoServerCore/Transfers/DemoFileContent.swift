/// The content of `/files/{size}?version=V`: a deterministic, position-dependent byte stream that
/// any client can regenerate to check a download byte for byte.
///
/// The file is the sequence of 64-bit words `word(0), word(1), …` in little-endian byte order,
/// cut to `size` bytes, where `word(w)` is the SplitMix64 finalizer of
/// `w &+ (V &+ 1) &* 0x9E3779B97F4A7C15`:
///
/// ```
/// z = w &+ (V &+ 1) &* 0x9E3779B97F4A7C15
/// z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
/// z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
/// word(w) = z ^ (z >> 31)
/// byte(i) = UInt8(truncatingIfNeeded: word(i >> 3) >> ((i & 7) * 8))
/// ```
///
/// So a file's first bytes do not depend on its size, a different version differs everywhere,
/// and no two blocks repeat (a resume that appended at the wrong offset is always caught).
/// `Tests/FormworkTestSupport/DemoFileContent.swift` holds the same function for the tests.
enum DemoFileContent {
    /// The word at word index `index` (bytes `8 * index ..< 8 * index + 8`) of version `version`.
    @inline(__always)
    static func word(_ index: UInt64, version: UInt64) -> UInt64 {
        var z = index &+ (version &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The byte at `offset`.
    static func byte(at offset: UInt64, version: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: word(offset >> 3, version: version) >> ((offset & 7) * 8))
    }

    /// Fills `buffer` with the bytes starting at `offset`.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, from offset: UInt64, version: UInt64) {
        var position = offset
        var index = 0
        let count = buffer.count
        // Up to the next word boundary, byte by byte.
        while index < count, position & 7 != 0 {
            buffer[index] = byte(at: position, version: version)
            index += 1
            position += 1
        }
        // Whole words.
        var wordIndex = position >> 3
        while count - index >= 8 {
            buffer.storeBytes(
                of: word(wordIndex, version: version).littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
            wordIndex += 1
        }
        position = wordIndex << 3
        // The rest of the last word.
        while index < count {
            buffer[index] = byte(at: position, version: version)
            index += 1
            position += 1
        }
    }
}
