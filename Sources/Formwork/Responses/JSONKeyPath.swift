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
    /// The components, in order.
    let components: [String]

    /// Parses `"a.b.c"`. An empty string or a path with empty components is rejected.
    init?(_ path: String) {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty, !parts.contains(where: \.isEmpty) else { return nil }
        components = parts
    }

    /// The whole document: finding it checks that the document is well-formed.
    static let root = JSONKeyPath(uncheckedComponents: [])

    private init(uncheckedComponents: [String]) {
        components = uncheckedComponents
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
    /// - Throws: ``Failure``.
    func range(in data: Data) throws(Failure) -> Range<Int> {
        let bytes = [UInt8](data)
        var scanner = JSONScanner(bytes: bytes, target: components)
        return try scanner.findTarget()
    }

    /// The bytes of the value at this path.
    func value(in data: Data) throws(Failure) -> Data {
        let range = try range(in: data)
        return data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
    }
}

/// A strict, allocation-light JSON scanner (RFC 8259) that validates a whole document while
/// remembering the range of the value at a target path.
private struct JSONScanner {
    let bytes: [UInt8]
    let target: [String]
    var index = 0
    var found: Range<Int>?
    /// How deep nesting may go before the document is refused (guards the stack).
    static let maximumDepth = 512

    init(bytes: [UInt8], target: [String]) {
        self.bytes = bytes
        self.target = target
    }

    mutating func findTarget() throws(JSONKeyPath.Failure) -> Range<Int> {
        var deepestMatch = 0
        skipWhitespace()
        try scanValue(path: [], depth: 0, deepestMatch: &deepestMatch)
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
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// `path` is the path of the value about to be scanned if it is still on the target's way,
    /// else `nil`.
    private mutating func scanValue(path: [String]?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        guard depth < Self.maximumDepth else { throw malformed("nesting deeper than \(Self.maximumDepth)") }
        guard index < bytes.count else { throw malformed("unexpected end of document") }
        let start = index
        let onPath = path.map { target.starts(with: $0) } ?? false
        if onPath, let path { deepestMatch = max(deepestMatch, path.count) }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try scanObject(path: onPath ? path : nil, depth: depth, deepestMatch: &deepestMatch)
        case UInt8(ascii: "["):
            try scanArray(path: onPath ? path : nil, depth: depth, deepestMatch: &deepestMatch)
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
        default:
            throw malformed("unexpected character")
        }
        if onPath, path?.count == target.count {
            found = start..<index
        }
    }

    private mutating func scanObject(path: [String]?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw malformed("expected a member name")
            }
            let name = try scanString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw malformed("expected ':'")
            }
            index += 1
            skipWhitespace()
            try scanValue(path: path.map { $0 + [name] }, depth: depth + 1, deepestMatch: &deepestMatch)
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

    private mutating func scanArray(path: [String]?, depth: Int, deepestMatch: inout Int)
        throws(JSONKeyPath.Failure)
    {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        var element = 0
        while true {
            skipWhitespace()
            try scanValue(
                path: path.map { $0 + [String(element)] }, depth: depth + 1, deepestMatch: &deepestMatch)
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

    /// Scans a string and returns its decoded value.
    private mutating func scanString() throws(JSONKeyPath.Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw malformed("invalid UTF-8 in a string")
                }
                scalars.append(contentsOf: text.unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw malformed("invalid UTF-8 in a string")
                }
                scalars.append(contentsOf: text.unicodeScalars)
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
