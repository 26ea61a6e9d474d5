/// Cuts a byte stream, fed in chunks of any size, into lines.
///
/// A line ends at CR, at LF, or at CR LF: a CR at the end of one chunk followed by an LF at the
/// start of the next is one line end. Only these two bytes end lines (U+2028, U+0085 and friends
/// are data), and they never occur inside a multi-byte UTF-8 sequence, so splitting bytes before
/// decoding is exact. A UTF-8 byte order mark at the very start of the stream is skipped once.
/// Pure and incremental: the work per byte is constant, and only the current line is held.
struct LineSplitter: Sendable {
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// The bytes of the line not ended yet.
    private(set) var partial: [UInt8] = []
    /// The last byte seen was a CR: an LF right after it belongs to the same line end.
    private var afterCR = false
    /// How many bytes of a leading BOM were matched so far; `nil` once the start is decided.
    private var bomMatched: Int? = 0
    /// How many lines ended so far (the number of the next line, minus one).
    private(set) var lineCount = 0

    /// The number of bytes held for the line not ended yet.
    var pendingByteCount: Int { partial.count }

    /// Feeds the next chunk and calls `line` for every line it completes, in order, with the
    /// line's bytes (without its line end) and its 1-based number.
    /// - Parameters:
    ///   - bytes: The next bytes of the stream.
    ///   - line: Receives each completed line; throwing stops the feed and rethrows.
    mutating func feed<Bytes: Sequence<UInt8>>(
        _ bytes: Bytes, line: (_ bytes: [UInt8], _ number: Int) throws -> Void
    ) rethrows {
        for byte in bytes {
            if let matched = bomMatched {
                if byte == Self.bom[matched] {
                    bomMatched = matched + 1 == Self.bom.count ? nil : matched + 1
                    continue
                }
                // Not a BOM after all: what looked like its start is data.
                bomMatched = nil
                partial.append(contentsOf: Self.bom[..<matched])
            }
            if byte == Self.lf, afterCR {
                afterCR = false
                continue
            }
            afterCR = byte == Self.cr
            if byte == Self.cr || byte == Self.lf {
                lineCount += 1
                let completed = partial
                partial.removeAll(keepingCapacity: true)
                try line(completed, lineCount)
            } else {
                partial.append(byte)
            }
        }
    }

    /// The stream ended: the bytes after the last line end (a final line with no line end), if
    /// any, with its number. Bytes of a BOM cut short count as data.
    mutating func finish() -> (bytes: [UInt8], number: Int)? {
        if let matched = bomMatched {
            bomMatched = nil
            partial.append(contentsOf: Self.bom[..<matched])
        }
        guard !partial.isEmpty else { return nil }
        lineCount += 1
        defer { partial = [] }
        return (partial, lineCount)
    }
}
