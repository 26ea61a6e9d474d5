import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, as an HTML form posts them.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append(Data("Ada".utf8), name: "name")
/// form.append(URL(fileURLWithPath: "/tmp/photo.jpg"), name: "avatar")  // image/jpeg, "photo.jpg"
/// ```
///
/// Appending only records the parts: files are measured and read when the body is encoded, in
/// 1 MiB chunks, never whole. An upload form builds the body in memory below its
/// `encodingMemoryThreshold` and in a temporary file above it (removed afterwards). Problems such
/// as a missing file are reported then, as a ``NetworkError`` of kind
/// ``NetworkError/Kind/fileOperationFailed`` (a file part's problem) or
/// ``NetworkError/Kind/multipartEncodingFailed`` (the body's own), whose ``NetworkError/reason``
/// says what was wrong.
///
/// **Header escaping.** Field names and file names go into `Content-Disposition` as quoted
/// strings with `"`, CR and LF percent-encoded as `%22`, `%0D` and `%0A` (what browsers send, per
/// the WHATWG HTML standard), so no name can end the header early. Non-ASCII names are sent as
/// raw UTF-8, as browsers do: RFC 7578 §4.2 forbids the RFC 5987 `filename*=` form, and servers
/// (and the frameworks behind them) read UTF-8 `filename="…"` values.
///
/// **Boundaries.** A generated boundary is `formwork.boundary.` followed by 128 random bits (32
/// hex digits) from the system's secure generator. In-memory parts are checked when appended: if
/// one contains the boundary, a new boundary is drawn. File parts are checked while they are
/// copied (the bytes pass through memory anyway), and a hit fails the encoding with
/// reason `boundaryCollision` instead of sending a corrupt body. For a
/// file that was not made from this very boundary the chance of a hit is at most n / 2¹²⁸ for
/// n bytes: about 2⁻⁸⁸ for a terabyte.
public struct MultipartFormData: Sendable {
    /// The boundary between parts (without the leading `--`).
    private(set) var boundary: String
    /// The parts in the order appended.
    private(set) var parts: [Part] = []
    /// `true` when the caller chose the boundary: it is then never replaced.
    private let hasCustomBoundary: Bool

    /// Creates an empty body.
    /// - Parameter boundary: The boundary to use, or `nil` (the default) for a random one. A
    ///   custom boundary must be 1 to 70 characters of RFC 2046 `bchars` not ending with a space;
    ///   an invalid one, or one that a part contains, fails the encoding.
    public init(boundary: String? = nil) {
        self.boundary = boundary ?? Self.randomBoundary()
        self.hasCustomBoundary = boundary != nil
    }

    /// Appends a field or an in-memory file.
    /// - Parameters:
    ///   - data: The part's content.
    ///   - name: The form field name.
    ///   - fileName: A file name to send, or `nil` for a plain field.
    ///   - mimeType: The part's `Content-Type`. When `nil`, a part with a file name gets a type
    ///     guessed from the file name's extension (`application/octet-stream` if unknown), and a
    ///     plain field gets no `Content-Type` at all (it means `text/plain` to the server).
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil)
    {
        let type = mimeType ?? fileName.map(MIMEType.guess(forFileName:))
        parts.append(Part(name: name, fileName: fileName, mimeType: type, content: .data(data)))
        if !hasCustomBoundary, ByteSearch.contains(Array(boundary.utf8), in: data) {
            // Draw again until no in-memory part, old or new, contains the boundary.
            repeat {
                boundary = Self.randomBoundary()
            } while parts.contains(where: { $0.inMemoryContent(contains: boundary) })
        }
    }

    /// Appends a file, read from disk in chunks when the body is encoded.
    /// - Parameters:
    ///   - fileURL: A `file://` URL. It is not read now; a missing file fails the encoding.
    ///   - name: The form field name.
    ///   - fileName: The file name to send; defaults to the URL's last path component.
    ///   - mimeType: The part's `Content-Type`; defaults to a type guessed from the URL's extension
    ///     (or the file name's), `application/octet-stream` if unknown.
    public mutating func append(
        _ fileURL: URL, name: String, fileName: String? = nil, mimeType: String? = nil
    ) {
        let sentName = fileName ?? fileURL.lastPathComponent
        let type =
            mimeType
            ?? (fileURL.pathExtension.isEmpty
                ? MIMEType.guess(forFileName: sentName)
                : MIMEType.guess(forPathExtension: fileURL.pathExtension))
        parts.append(Part(name: name, fileName: sentName, mimeType: type, content: .file(fileURL)))
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=…` (the boundary is quoted when
    /// it contains characters that a bare parameter value cannot).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { Self.tokenBytes.contains($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The exact size of the encoded body, computed from the files' sizes without reading them; `nil`
    /// when it cannot be known (a file is missing or unreadable, or a header is invalid, so
    /// encoding would fail).
    var contentLength: Int64? {
        try? encodedLength()
    }

    /// `true` when no part has been appended.
    var isEmpty: Bool { parts.isEmpty }

    /// The number of parts appended.
    var count: Int { parts.count }
}

// MARK: - Parts

extension MultipartFormData {
    /// One part: its `Content-Disposition` values, its type and where its bytes are.
    struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        let name: String
        let fileName: String?
        let mimeType: String?
        let content: Content

        /// Whether this part's in-memory content contains `boundary` (files are checked when copied).
        func inMemoryContent(contains boundary: String) -> Bool {
            guard case .data(let data) = content else { return false }
            return ByteSearch.contains(Array(boundary.utf8), in: data)
        }

        /// The part's header block, ending with the empty line before the content.
        func headerData() throws(NetworkError) -> Data {
            var disposition = "Content-Disposition: form-data; name=\"\(Self.escaped(name))\""
            if let fileName {
                disposition += "; filename=\"\(Self.escaped(fileName))\""
            }
            var text = disposition + "\r\n"
            if let mimeType {
                guard
                    mimeType.unicodeScalars.allSatisfy({
                        $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F)
                    })
                else {
                    throw NetworkError.multipart(
                        .invalidMIMEType,
                        failureReason: "The MIME type of part \"\(name)\" contains control characters.")
                }
                text += "Content-Type: \(mimeType)\r\n"
            }
            return Data((text + "\r\n").utf8)
        }

        /// A name or file name for a quoted-string: `"`, CR and LF percent-encoded (WHATWG HTML).
        static func escaped(_ value: String) -> String {
            var out = ""
            out.reserveCapacity(value.utf8.count)
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "%22"
                case "\r": out += "%0D"
                case "\n": out += "%0A"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
    }
}

// MARK: - Framing

extension MultipartFormData {
    static let crlf = Data("\r\n".utf8)

    /// `--boundary\r\n`, written before each part.
    var delimiter: Data { Data("--\(boundary)\r\n".utf8) }

    /// `--boundary--\r\n`, written after the last part.
    var closeDelimiter: Data { Data("--\(boundary)--\r\n".utf8) }

    /// Throws when the boundary is not a valid RFC 2046 boundary, or a custom boundary collides
    /// with an in-memory part (generated ones are replaced on append instead).
    func validateBoundary() throws(NetworkError) {
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.allSatisfy({ Self.boundaryBytes.contains($0) }),
            bytes.last != UInt8(ascii: " ")
        else {
            throw NetworkError.multipart(
                .invalidBoundary,
                failureReason:
                    "\"\(boundary)\" is not a valid boundary (1-70 letters, digits or '()+_,-./:=? not ending in a space)."
            )
        }
        if let part = parts.first(where: { $0.inMemoryContent(contains: boundary) }) {
            throw NetworkError.multipart(
                .boundaryCollision,
                failureReason: "The content of part \"\(part.name)\" contains the boundary \"\(boundary)\".")
        }
    }

    /// The exact encoded size; throws what encoding would throw for the headers and file sizes.
    func encodedLength() throws(NetworkError) -> Int64 {
        try validateBoundary()
        let framing = Int64(delimiter.count + Self.crlf.count)
        var total = Int64(closeDelimiter.count)
        for part in parts {
            total += framing + Int64(try part.headerData().count)
            switch part.content {
            case .data(let data): total += Int64(data.count)
            case .file(let url): total += try MultipartFile.size(of: url, part: part.name)
            }
        }
        return total
    }

    /// A new random boundary: a fixed prefix and 128 random bits as 32 hex digits.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "formwork.boundary." + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// RFC 2046 `bchars`: the bytes a boundary may contain.
    static let boundaryBytes = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)

    /// RFC 9110 `tchar`: the bytes a parameter value may contain without quotes.
    static let tokenBytes = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&'*+-.^_`|~".utf8)
}
