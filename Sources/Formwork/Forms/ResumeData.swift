import Foundation

/// What it takes to continue a download that stopped part-way: where it came from, where its
/// bytes are, how many there are, and how to make sure the server still has the same file.
///
/// Formwork resumes with HTTP itself (`Range: bytes=N-` plus `If-Range`), so this works on every
/// platform, Linux included, and needs nothing from `URLSession`. It is a plain `Codable` value:
/// save ``encoded()`` anywhere (a file, `UserDefaults`, a database) and rebuild it with
/// ``init(encoded:)`` after the app restarts; then send a `DownloadResumeFormable` form with it.
///
/// Keep the partial file somewhere the system does not clean up while you still need it (not the
/// temporary directory if the app may be suspended for long). If the file is gone, shorter than
/// ``bytesReceived``, or the server's file changed, the download starts again from zero and
/// still ends with a correct file. On Apple platforms an app update moves the app's container:
/// the stored absolute path then no longer exists, and the download restarts.
///
/// For privacy, it never holds `Authorization`, `Proxy-Authorization` or `Cookie`: the form and
/// the session's adapters add those again when the download is resumed. The rest (the URL, the
/// method, the other headers, the `ETag` or `Last-Modified` date that proves the server's file is
/// unchanged) is Formwork's business: keep the value whole and hand it back in a
/// `DownloadResumeFormable` form.
public struct ResumeData: Codable, Sendable, Equatable {
    /// The version of the encoded form; `init(encoded:)` rejects newer versions.
    static let formatVersion = 1

    /// The URL of the download, as an absolute string.
    var url: String
    /// The request method (usually GET).
    var method: HTTPMethod
    /// The request headers to send again (without credentials and without `Range`/`If-Range`).
    var headers: HTTPHeaders
    /// The file holding the first ``bytesReceived`` bytes.
    public var partialFileURL: URL
    /// How many bytes of the file have been received and written.
    public var bytesReceived: Int64
    /// The size of the whole file, when the server said.
    public var totalBytes: Int64?
    /// What proves, in `If-Range`, that the server's file is still the one the bytes came from.
    /// `nil` when the server gave no usable validator: then the download cannot be resumed safely.
    var validator: Validator?
    /// When the partial download stopped.
    var createdAt: Date

    /// Creates resume data. Formwork creates it when a download fails or is cancelled; apps mostly
    /// decode it with ``init(encoded:)``.
    /// - Parameters:
    ///   - url: The absolute URL of the download.
    ///   - method: The request method.
    ///   - headers: Headers to send again (credentials and range headers are dropped).
    ///   - partialFileURL: The file with the bytes received so far.
    ///   - bytesReceived: How many bytes it holds.
    ///   - totalBytes: The size of the whole file, if known.
    ///   - validator: The `If-Range` validator, if the server gave a usable one.
    ///   - createdAt: When the download stopped; now by default.
    init(
        url: String,
        method: HTTPMethod = .get,
        headers: HTTPHeaders = HTTPHeaders(),
        partialFileURL: URL,
        bytesReceived: Int64,
        totalBytes: Int64? = nil,
        validator: Validator?,
        createdAt: Date = Date()
    ) {
        self.url = url
        self.method = method
        self.headers = HTTPHeaders(headers.filter { !Self.headersNotKept.contains($0.name.lowercased()) })
        self.partialFileURL = partialFileURL
        self.bytesReceived = bytesReceived
        self.totalBytes = totalBytes
        self.validator = validator
        self.createdAt = createdAt
    }

    /// `true` when a resume request can be sent: there are bytes to keep and a validator to guard them.
    public var isResumable: Bool {
        bytesReceived > 0 && validator != nil
    }

    /// The value as JSON, to store until the app resumes: stable keys, and a format version, so
    /// that a Formwork that does not know the version rejects it rather than misreading it.
    /// - Returns: UTF-8 JSON.
    /// - Throws: An `EncodingError` (not expected for values Formwork creates).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Rebuilds resume data from ``encoded()`` output, e.g. after an app restart.
    /// - Parameter data: What ``encoded()`` returned.
    /// - Throws: A `DecodingError` when the data is not resume data of a known version.
    public init(encoded data: Data) throws {
        self = try JSONDecoder().decode(ResumeData.self, from: data)
    }

    /// Header names (lower case) never stored: credentials, and the range headers a resume adds itself.
    static let headersNotKept = HTTPHeader.requestCredentialNames.union(["range", "if-range"])
}

extension ResumeData {
    /// A validator for `If-Range` (RFC 9110 §13.1.5): a strong entity tag, or a Last-Modified date.
    enum Validator: Sendable, Equatable, CustomStringConvertible {
        /// An `ETag` not marked weak, exactly as the server sent it: normally with its quotes, e.g.
        /// `"v2-1024"`; a tag the server sent without quotes (`v2-1024`) is kept and sent back
        /// without them.
        case entityTag(String)
        /// A `Last-Modified` HTTP date, as the server sent it.
        case lastModified(String)

        /// The `If-Range` header value.
        var headerValue: String {
            switch self {
            case .entityTag(let tag): tag
            case .lastModified(let date): date
            }
        }

        /// e.g. `ETag "v2-1024"`.
        var description: String {
            switch self {
            case .entityTag(let tag): "ETag \(tag)"
            case .lastModified(let date): "Last-Modified \(date)"
            }
        }
    }
}

// MARK: - Codable

extension ResumeData {
    private enum CodingKeys: String, CodingKey {
        case formatVersion, url, method, headers, partialFilePath, bytesReceived, totalBytes, entityTag,
            lastModified, createdAt
    }

    /// Decodes the JSON that ``encode(to:)`` writes.
    /// - Parameter decoder: The decoder.
    /// - Throws: A `DecodingError` for missing keys or a newer format version.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .formatVersion)
        guard version <= Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: container,
                debugDescription:
                    "Resume data of format \(version) is newer than this Formwork (\(Self.formatVersion)).")
        }
        let pairs = try container.decode([[String]].self, forKey: .headers)
        let entityTag = try container.decodeIfPresent(String.self, forKey: .entityTag)
        let lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        self.init(
            url: try container.decode(String.self, forKey: .url),
            method: HTTPMethod(rawValue: try container.decode(String.self, forKey: .method)),
            headers: HTTPHeaders(
                pairs.compactMap { $0.count == 2 ? HTTPHeader(name: $0[0], value: $0[1]) : nil }),
            partialFileURL: URL(fileURLWithPath: try container.decode(String.self, forKey: .partialFilePath)),
            bytesReceived: try container.decode(Int64.self, forKey: .bytesReceived),
            totalBytes: try container.decodeIfPresent(Int64.self, forKey: .totalBytes),
            validator: entityTag.map(Validator.entityTag) ?? lastModified.map(Validator.lastModified),
            createdAt: Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .createdAt))
        )
    }

    /// Encodes with stable keys: the date as seconds since 1970 and the headers as `[name, value]`
    /// pairs, whatever the encoder's strategies.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .formatVersion)
        try container.encode(url, forKey: .url)
        try container.encode(method.rawValue, forKey: .method)
        try container.encode(headers.map { [$0.name, $0.value] }, forKey: .headers)
        try container.encode(partialFileURL.path, forKey: .partialFilePath)
        try container.encode(bytesReceived, forKey: .bytesReceived)
        try container.encodeIfPresent(totalBytes, forKey: .totalBytes)
        switch validator {
        case .entityTag(let tag): try container.encode(tag, forKey: .entityTag)
        case .lastModified(let date): try container.encode(date, forKey: .lastModified)
        case nil: break
        }
        try container.encode(createdAt.timeIntervalSince1970, forKey: .createdAt)
    }
}
