import Foundation

/// Finds the value at a dotted key path (`"data"`, `"data.list"`, `"items.0.name"`) inside a JSON
/// document without converting any of it, so the value's own bytes can be decoded exactly
/// (no precision lost to `NSNumber` round trips) and the rest of the document is still checked
/// for well-formedness.
///
/// Components select object members by name; on an array, a component that is a non-negative
/// integer selects that element. When a member name repeats, the last one wins (as in
/// `JSONSerialization`).
struct JSONKeyPath: Sendable, Equatable, CustomStringConvertible {
    /// The components, in order, as the scanner reads them: the first one apart, so that a path
    /// of one component (most are: "data") makes no array.
    struct Components: Sendable, Equatable {
        let first: String?
        let rest: [String]

        var count: Int { first == nil ? 0 : 1 + rest.count }
        var isEmpty: Bool { first == nil }

        subscript(index: Int) -> String {
            index == 0 ? first ?? "" : rest[index - 1]
        }
    }

    /// The components, as the scanner reads them.
    let parts: Components

    /// The components, in order.
    var components: [String] { parts.first.map { [$0] + parts.rest } ?? [] }

    /// Parses `"a.b.c"`. An empty string or a path with empty components is rejected.
    init?(_ path: String) {
        // A path of one component needs no split, which costs more than the rest of this init.
        if !path.isEmpty, !path.utf8.contains(UInt8(ascii: ".")) {
            parts = Components(first: path, rest: [])
            return
        }
        let split = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty, let first = split.first, !split.contains(where: \.isEmpty) else { return nil }
        parts = Components(first: first, rest: Array(split.dropFirst()))
    }

    /// The whole document: finding it checks that the document is well-formed.
    static let root = JSONKeyPath(parts: Components(first: nil, rest: []))

    private init(parts: Components) {
        self.parts = parts
    }

    /// The path as written.
    var description: String { components.joined(separator: ".") }

    /// Why a document could not be read at a path.
    enum Failure: Error, Equatable, Sendable {
        /// The document is not well-formed JSON; `offset` is where reading stopped.
        case malformed(offset: Int, reason: String)
        /// The document is JSON but the path leads nowhere; `component` is the first missing part.
        case notFound(component: String)
    }

    /// The byte range of the value at this path within `data`.
    /// - Parameters:
    ///   - data: The document.
    ///   - checksValue: Whether the value found is checked too. `false` when the caller parses
    ///     the value's bytes itself (a decoder), which checks them anyway: the value is then only
    ///     measured (its strings and brackets followed to its end), about a quarter of the cost
    ///     for a body that is mostly the value. The rest of the document is checked either way.
    /// - Throws: ``Failure``.
    func range(in data: Data, checksValue: Bool = true) throws(Failure) -> Range<Int> {
        // Read in place: a copy of the body into an array cost an allocation and a copy, and the
        // array's bounds checks about a fifth of the scan.
        let result = data.withUnsafeBytes { raw -> Result<Range<Int>, Failure> in
            var scanner = JSONScanner(
                bytes: raw.bindMemory(to: UInt8.self), target: parts, checksTarget: checksValue)
            do throws(Failure) {
                return .success(try scanner.findTarget())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The bytes of the value at this path: a slice of `data` (no copy; its indices are
    /// `data`'s). `checksValue` as in ``range(in:checksValue:)``.
    func value(in data: Data, checksValue: Bool = true) throws(Failure) -> Data {
        let range = try range(in: data, checksValue: checksValue)
        return data[(data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound)]
    }
}

/// A strict JSON scanner (RFC 8259) that validates a whole document while remembering the range
/// of the value at a target path.
///
/// It allocates nothing per value: strings are checked in place and only member names on the
/// target's way are compared, byte for byte when both sides are ASCII (else as `String`s, which
/// compare by canonical equivalence: `"\u{212A}"`, the Kelvin sign, equals `"K"`).
private struct JSONScanner {
    /// The document, valid for as long as the scanner is used (see `JSONKeyPath.range(in:)`).
    let bytes: UnsafeBufferPointer<UInt8>
    let target: JSONKeyPath.Components
    /// Whether the target's value is checked, or only measured (see `skipTarget`).
    let checksTarget: Bool
    var index = 0
    var found: Range<Int>?
    /// How deep nesting may go before the document is refused (guards the stack).
    static let maximumDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>, target: JSONKeyPath.Components, checksTarget: Bool = true) {
        self.bytes = bytes
        self.target = target
        self.checksTarget = checksTarget
    }

    /// `component` as an array index, when it is an index's canonical decimal form.
    private static func arrayIndex(_ component: String) -> Int? {
        guard let value = Int(component), value >= 0, String(value) == component else { return nil }
        return value
    }

    mutating func findTarget() throws(JSONKeyPath.Failure) -> Range<Int> {
        var deepestMatch = 0
        skipWhitespace()
        try scanValue(matched: 0, depth: 0, deepestMatch: &deepestMatch)
        skipWhitespace()
        guard index == bytes.count else { throw malformed("unexpected data after the top-level value") }
        guard let found else {
            throw .notFound(component: target.isEmpty ? "" : target[min(deepestMatch, target.count - 1)])
        }
        return found
    }

    private func malformed(_ reason: String) -> JSONKeyPath.Failure {
        .malformed(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        // Most documents have none between their tokens: one test when the next byte is not.
        guard index < bytes.count, bytes[index] <= 0x20 else { return }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// `matched` is how many target components lead to the value about to be scanned, or `nil`
    /// when the value is off the target's way.
    private mutating func scanValue(matched: Int?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        guard depth < Self.maximumDepth else { throw malformed("nesting deeper than \(Self.maximumDepth)") }
        guard index < bytes.count else { throw malformed("unexpected end of document") }
        let start = index
        if let matched { deepestMatch = max(deepestMatch, matched) }
        if !checksTarget, matched == target.count {
            // A value measured before for a member of the same name is part of the rest of the
            // document now that this one replaces it: checked.
            if let previous = found { try check(measured: previous, depth: depth) }
            try skipTarget()
            found = start..<index
            return
        }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try scanObject(matched: matched, depth: depth, deepestMatch: &deepestMatch)
        case UInt8(ascii: "["):
            try scanArray(matched: matched, depth: depth, deepestMatch: &deepestMatch)
        case UInt8(ascii: "\""):
            _ = try skipString()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
        default:
            throw malformed("unexpected character")
        }
        if matched == target.count {
            found = start..<index
        }
    }

    private mutating func scanObject(matched: Int?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        // Only members of an object on the target's way, short of its end, need their names read.
        let component = matched.flatMap { $0 < target.count ? $0 : nil }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw malformed("expected a member name")
            }
            let nameStart = index
            let isPlainASCII = try skipString()
            var childMatched: Int?
            if let component,
                try nameMatches(component, from: nameStart, isPlainASCII: isPlainASCII)
            {
                childMatched = component + 1
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw malformed("expected ':'")
            }
            index += 1
            skipWhitespace()
            try scanValue(matched: childMatched, depth: depth + 1, deepestMatch: &deepestMatch)
            skipWhitespace()
            guard index < bytes.count else { throw malformed("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            } else {
                throw malformed("expected ',' or '}'")
            }
        }
    }

    /// Whether the member name that starts at `nameStart` (its opening quote; already scanned,
    /// so well-formed) equals target component `component`.
    private func nameMatches(_ component: Int, from nameStart: Int, isPlainASCII: Bool)
        throws(JSONKeyPath.Failure) -> Bool
    {
        let expected = target[component].utf8
        if isPlainASCII, expected.allSatisfy({ $0 < 0x80 }) {
            // Between the quotes, without escapes: the bytes are the name.
            let name = bytes[(nameStart + 1)..<(index - 1)]
            return name.elementsEqual(expected)
        }
        var copy = self
        copy.index = nameStart
        return try copy.decodeString() == target[component]
    }

    private mutating func scanArray(matched: Int?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        let wanted = matched.flatMap { $0 < target.count ? Self.arrayIndex(target[$0]) : nil }
        var element = 0
        while true {
            skipWhitespace()
            let childMatched = wanted == element ? matched.map { $0 + 1 } : nil
            try scanValue(matched: childMatched, depth: depth + 1, deepestMatch: &deepestMatch)
            element += 1
            skipWhitespace()
            guard index < bytes.count else { throw malformed("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            } else {
                throw malformed("expected ',' or ']'")
            }
        }
    }

    /// Moves past the target's value without checking it (its reader does): a string to its
    /// closing quote, an array or object to its matching bracket, a number or literal to the next
    /// delimiter. Brackets are counted, not paired: a value whose brackets do not match is left
    /// to its reader, and a document whose brackets end too soon fails on its rest.
    private mutating func skipTarget() throws(JSONKeyPath.Failure) {
        // On locals: the loop reads each byte once and keeps its place in a register.
        let bytes = bytes
        let end = bytes.count
        let start = index
        var next = index
        var depth = 0
        defer { index = min(next, end) }
        while next < end {
            switch bytes[next] {
            case UInt8(ascii: "\""):
                next += 1
                while next < end {
                    let byte = bytes[next]
                    if byte == UInt8(ascii: "\"") { break }
                    next += byte == UInt8(ascii: "\\") ? 2 : 1
                }
                guard next < end else {
                    index = end
                    throw malformed("unterminated string")
                }
                next += 1
                if depth == 0 { return }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < Self.maximumDepth else {
                    index = next
                    throw malformed("nesting deeper than \(Self.maximumDepth)")
                }
                depth += 1
                next += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 {
                    guard next > start else {
                        index = next
                        throw malformed("unexpected character")
                    }
                    return
                }
                depth -= 1
                next += 1
                if depth == 0 { return }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 {
                    guard next > start else {
                        index = next
                        throw malformed("unexpected character")
                    }
                    return
                }
                next += 1
            default:
                next += 1
            }
        }
        index = end
        guard depth == 0 else { throw malformed("unexpected end of document") }
        guard end > start else { throw malformed("unexpected end of document") }
    }

    /// Checks a value `skipTarget` only measured (at `range`, found at `depth`), as
    /// `scanValue` checks any other: its offsets in errors are the document's.
    private func check(measured range: Range<Int>, depth: Int) throws(JSONKeyPath.Failure) {
        var inner = JSONScanner(
            bytes: UnsafeBufferPointer(rebasing: bytes[range]), target: JSONKeyPath.root.parts)
        var deepest = 0
        do throws(JSONKeyPath.Failure) {
            try inner.scanValue(matched: nil, depth: depth, deepestMatch: &deepest)
            guard inner.index == range.count else { throw inner.malformed("unexpected character") }
        } catch {
            guard case .malformed(let offset, let reason) = error else { throw error }
            throw .malformed(offset: range.lowerBound + offset, reason: reason)
        }
    }

    /// Scans a string without decoding it: checks for control characters, bad escapes and
    /// invalid UTF-8. Returns `true` when it is plain ASCII without escapes.
    private mutating func skipString() throws(JSONKeyPath.Failure) -> Bool {
        index += 1
        let contentStart = index
        // Most strings are printable ASCII up to their closing quote.
        skipPlainASCII()
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return true
        }
        return try skipRestOfString(from: contentStart)
    }

    /// The rest of `skipString`, from where its plain ASCII ended (`contentStart`: just past the
    /// opening quote).
    private mutating func skipRestOfString(from contentStart: Int) throws(JSONKeyPath.Failure) -> Bool {
        // The raw bytes since the last escape, checked as UTF-8 where `decodeString` checks them.
        var segmentStart = contentStart
        var segmentIsASCII = true
        var isPlainASCII = true
        while index < bytes.count {
            skipPlainASCII()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                let segment = segmentStart..<index
                if byte == UInt8(ascii: "\"") { index += 1 }  // past the quote, as `decodeString` reports
                if !segmentIsASCII, !isValidUTF8(bytes[segment]) {
                    throw malformed("invalid UTF-8 in a string")
                }
                if byte == UInt8(ascii: "\"") { return isPlainASCII }
                isPlainASCII = false
                _ = try scanEscape()
                segmentStart = index
                segmentIsASCII = true
            case 0x00..<0x20:
                throw malformed("control character in a string")
            default:
                if byte >= 0x80 {
                    segmentIsASCII = false
                    isPlainASCII = false
                }
                index += 1
            }
        }
        throw malformed("unterminated string")
    }

    /// Moves past printable ASCII other than a quote or a backslash: what most of a string is,
    /// and what `skipString` would pass one byte at a time without changing anything else.
    private mutating func skipPlainASCII() {
        var next = index
        while next < bytes.count {
            let byte = bytes[next]
            // Printable ASCII (0x20...0x7F) other than a quote or a backslash.
            if byte &- 0x20 >= 0x60 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            next += 1
        }
        index = next
    }

    /// Scans a string and returns its decoded value.
    private mutating func decodeString() throws(JSONKeyPath.Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard appendUTF8(raw, to: &scalars) else { throw malformed("invalid UTF-8 in a string") }
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard appendUTF8(raw, to: &scalars) else { throw malformed("invalid UTF-8 in a string") }
                raw.removeAll(keepingCapacity: true)
                scalars.append(try scanEscape())
            case 0x00..<0x20:
                throw malformed("control character in a string")
            default:
                raw.append(byte)
                index += 1
            }
        }
        throw malformed("unterminated string")
    }

    private mutating func scanEscape() throws(JSONKeyPath.Failure) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw malformed("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try scanHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { return "\u{FFFD}" }
                index += 2
                let low = try scanHex4()
                guard (0xDC00..<0xE000).contains(low) else { return "\u{FFFD}" }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                return Unicode.Scalar(value) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(high) ?? "\u{FFFD}"
        default:
            throw malformed("invalid escape")
        }
    }

    private mutating func scanHex4() throws(JSONKeyPath.Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw malformed("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func scanNumber() throws(JSONKeyPath.Failure) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw malformed("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw malformed("invalid fraction") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw malformed("invalid exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func expect(_ literal: StaticString) throws(JSONKeyPath.Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw malformed("unexpected end of document") }
        let matches = literal.withUTF8Buffer { buffer in
            (0..<count).allSatisfy { bytes[index + $0] == buffer[$0] }
        }
        guard matches else { throw malformed("invalid literal") }
        index += count
    }
}
