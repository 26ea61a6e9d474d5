import ExampleSupport
import Foundation

/// What `/upload` reports about one part of a `multipart/form-data` body.
struct MultipartPartSummary: Sendable {
    var name: String?
    var fileName: String?
    var contentType: String?
    var bytes: Int64 = 0
    var md5: String?

    var json: JSON {
        [
            "name": .string(orNull: name), "fileName": .string(orNull: fileName),
            "contentType": .string(orNull: contentType), "bytes": .int(Int(bytes)),
            "md5": .string(orNull: md5),
        ]
    }
}

/// A streaming `multipart/form-data` parser (RFC 7578 / RFC 2046): it is fed the body in pieces
/// of any size and keeps only what it has not yet decided about, at most a header block (16 KiB)
/// or one delimiter's length of part content. Part contents are counted and hashed as they pass,
/// never stored, so a 1 GiB file part costs no memory.
final class MultipartStreamParser {
    /// The longest header block a part may have.
    static let maxHeaderBytes = 16 * 1024

    private enum State {
        case preamble
        case afterDelimiter
        case headers
        case body
        case epilogue
        case failed(String)
    }

    /// `CRLF--boundary`: what ends a part's content.
    private let delimiter: [UInt8]
    private let hashes: Bool
    /// Bytes received but not yet decided about. Starts with a CRLF so that a body that begins
    /// with the first delimiter (the usual case: no preamble) matches like any other.
    private var buffer: [UInt8] = [13, 10]
    private var state = State.preamble
    private var current = MultipartPartSummary()
    private var currentMD5 = MD5()
    /// The parts completed so far.
    private(set) var parts: [MultipartPartSummary] = []

    /// - Parameters:
    ///   - boundary: The boundary from the request's `Content-Type`.
    ///   - hashes: Whether to compute each part's MD5.
    init(boundary: String, hashes: Bool) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.hashes = hashes
    }

    /// The boundary parameter of a `multipart/form-data` content type, nil for other types, and
    /// `.failure` for a multipart type without a usable boundary.
    static func boundary(fromContentType contentType: String?) -> Result<String, MultipartError>? {
        guard let contentType else { return nil }
        let parameters = HeaderParameters.parse(contentType)
        guard parameters.value.lowercased() == "multipart/form-data" else { return nil }
        guard let boundary = parameters["boundary"], (1...70).contains(boundary.utf8.count) else {
            return .failure(MultipartError(message: "multipart/form-data without a valid boundary"))
        }
        return .success(boundary)
    }

    /// Feeds the next piece of the body.
    func feed(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .epilogue, .failed: return
        default: break
        }
        buffer.append(contentsOf: bytes)
        process()
    }

    /// The body is complete: the parts, or why the body was not a complete multipart body.
    func finish() -> Result<[MultipartPartSummary], MultipartError> {
        switch state {
        case .epilogue: .success(parts)
        case .failed(let message): .failure(MultipartError(message: message))
        default: .failure(MultipartError(message: "the body ended before the closing boundary"))
        }
    }

    private func process() {
        while true {
            switch state {
            case .preamble:
                guard let index = Self.firstIndex(of: delimiter, in: buffer) else {
                    keepTail()
                    return
                }
                buffer.removeFirst(index + delimiter.count)
                state = .afterDelimiter
            case .afterDelimiter:
                guard afterDelimiter() else { return }
            case .headers:
                guard headers() else { return }
            case .body:
                guard let index = Self.firstIndex(of: delimiter, in: buffer) else {
                    let safe = buffer.count - (delimiter.count - 1)
                    if safe > 0 {
                        content(buffer[..<safe])
                        buffer.removeFirst(safe)
                    }
                    return
                }
                content(buffer[..<index])
                buffer.removeFirst(index + delimiter.count)
                current.md5 = hashes ? currentMD5.finalize() : nil
                parts.append(current)
                state = .afterDelimiter
            case .epilogue, .failed:
                buffer.removeAll()
                return
            }
        }
    }

    /// After a delimiter: `--` closes the body; otherwise optional spaces, CRLF, then headers.
    /// Returns false when more bytes are needed.
    private func afterDelimiter() -> Bool {
        guard buffer.count >= 2 else { return false }
        if buffer[0] == UInt8(ascii: "-"), buffer[1] == UInt8(ascii: "-") {
            state = .epilogue
            return true
        }
        let spaces = buffer.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
        guard buffer.count >= spaces + 2 else {
            guard spaces <= 1024 else {
                state = .failed("too much padding after a boundary")
                return true
            }
            return false
        }
        guard buffer[spaces] == 13, buffer[spaces + 1] == 10 else {
            state = .failed("a boundary is not followed by CRLF or --")
            return true
        }
        buffer.removeFirst(spaces + 2)
        state = .headers
        return true
    }

    /// A part's header block, up to the empty line. Returns false when more bytes are needed.
    private func headers() -> Bool {
        let end: Int
        let headerBytes: ArraySlice<UInt8>
        if buffer.starts(with: [13, 10]) {
            end = 2
            headerBytes = []
        } else if let index = Self.firstIndex(of: [13, 10, 13, 10], in: buffer) {
            end = index + 4
            headerBytes = buffer[..<index]
        } else {
            if buffer.count > Self.maxHeaderBytes {
                state = .failed("a part's headers are longer than \(Self.maxHeaderBytes) bytes")
                return true
            }
            return false
        }
        current = MultipartPartSummary()
        currentMD5 = MD5()
        let text = String(decoding: headerBytes, as: UTF8.self)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else {
                state = .failed("a part's header line has no colon")
                return true
            }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmingWhitespace())
            if name == "content-disposition" {
                let parameters = HeaderParameters.parse(value)
                current.name = parameters["name"]
                current.fileName = parameters["filename"]
            } else if name == "content-type" {
                current.contentType = value
            }
        }
        buffer.removeFirst(end)
        state = .body
        return true
    }

    /// Bytes of the current part's content.
    private func content(_ bytes: ArraySlice<UInt8>) {
        current.bytes += Int64(bytes.count)
        if hashes {
            bytes.withUnsafeBytes { currentMD5.update($0) }
        }
    }

    /// Keeps only the bytes that could still begin a delimiter.
    private func keepTail() {
        let keep = delimiter.count - 1
        if buffer.count > keep {
            buffer.removeFirst(buffer.count - keep)
        }
    }

    /// The first index of `pattern` in `bytes` (memchr for the first byte, then a compare).
    static func firstIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        let lastStart = bytes.count - pattern.count
        return bytes.withUnsafeBytes { haystack -> Int? in
            pattern.withUnsafeBytes { needle -> Int? in
                guard let base = haystack.baseAddress, let needleBase = needle.baseAddress else { return nil }
                var start = 0
                while start <= lastStart {
                    guard let hit = memchr(base + start, Int32(first), lastStart - start + 1) else {
                        return nil
                    }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needleBase, pattern.count) == 0 { return index }
                    start = index + 1
                }
                return nil
            }
        }
    }
}

/// Why a body was not valid `multipart/form-data`.
struct MultipartError: Error, Sendable {
    let message: String
}

/// A header value with parameters, e.g. `form-data; name="a"; filename="b.txt"`.
struct HeaderParameters {
    /// The part before the first `;`, trimmed.
    var value: String
    /// Parameters by lower-cased name; quoted values unquoted (with `\` escapes removed).
    var parameters: [String: String]

    subscript(name: String) -> String? { parameters[name] }

    static func parse(_ text: String) -> HeaderParameters {
        var pieces: [String] = []
        var piece = ""
        var inQuotes = false
        var escaped = false
        for character in text {
            if escaped {
                piece.append(character)
                escaped = false
            } else if inQuotes && character == "\\" {
                piece.append(character)
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
                piece.append(character)
            } else if character == ";" && !inQuotes {
                pieces.append(piece)
                piece = ""
            } else {
                piece.append(character)
            }
        }
        pieces.append(piece)
        var parameters: [String: String] = [:]
        for item in pieces.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { continue }
            let name = Substring(item[..<equals]).trimmingWhitespace().lowercased()
            var value = Substring(item[item.index(after: equals)...]).trimmingWhitespace()
            if value.count >= 2, value.first == "\"", value.last == "\"" {
                value = value.dropFirst().dropLast()
                var unescaped = ""
                var pendingEscape = false
                for character in value {
                    if pendingEscape || character != "\\" {
                        unescaped.append(character)
                        pendingEscape = false
                    } else {
                        pendingEscape = true
                    }
                }
                value = Substring(unescaped)
            }
            if parameters[name] == nil {
                parameters[name] = String(value)
            }
        }
        let value = String(Substring(pieces[0]).trimmingWhitespace())
        return HeaderParameters(value: value, parameters: parameters)
    }
}
