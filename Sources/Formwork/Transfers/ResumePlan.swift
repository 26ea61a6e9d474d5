import Foundation

/// A parsed `Content-Range` header (RFC 9110 §14.4): `bytes 100-199/1000`, `bytes 100-199/*`
/// (total unknown) or `bytes */1000` (the answer to an unsatisfiable range).
struct ContentRange: Equatable, Sendable {
    /// The byte positions sent, first and last inclusive; `nil` for `bytes */N`.
    let range: ClosedRange<Int64>?
    /// The size of the whole representation; `nil` for `*`.
    let completeLength: Int64?

    init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses a header value; nil for anything malformed: another unit, missing parts, a sign,
    /// `first > last`, `last >= complete length`, `bytes */*`, or numbers beyond `Int64`.
    init?(_ header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "bytes" else { return nil }
        let value = text[text.index(after: space)...].trimmingCharacters(in: .whitespaces)
        let halves = value.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let length: Int64?
        if halves[1] == "*" {
            length = nil
        } else {
            guard let parsed = Self.number(halves[1]) else { return nil }
            length = parsed
        }
        if halves[0] == "*" {
            guard let length else { return nil }  // "bytes */*" says nothing
            self.init(range: nil, completeLength: length)
            return
        }
        let ends = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Self.number(ends[0]), let last = Self.number(ends[1]),
            first <= last
        else { return nil }
        if let length, last >= length { return nil }
        self.init(range: first...last, completeLength: length)
    }

    /// A non-negative decimal number of ASCII digits only.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }
}

/// What to do with the answer to a resume request (one sent with `Range: bytes=N-` and `If-Range`),
/// or to the whole-body request sent after a server refused the range.
enum ResumeDecision: Equatable, Sendable {
    /// A 206 whose range starts at N: append the body to the partial file.
    case append(ContentRange)
    /// A 200 carrying the partial file's own validator: the same file, sent whole (the server
    /// ignores ranges, or was asked without one). Its first N bytes are those already on disk:
    /// drop them and append the rest, so the partial file is never emptied by such an answer.
    case appendAfterSkipping(Int64)
    /// The partial file cannot be continued: truncate it and start from byte 0. When the reason's
    /// ``RestartReason/responseBodyIsWholeFile`` is `true` (a 200), this response's body is the
    /// whole file: write it from byte 0. Otherwise discard this response and send the request
    /// again without `Range`.
    case restartFromZero(RestartReason)
    /// A 416 proving that the partial file already holds the whole, unchanged file: finish
    /// without a body.
    case alreadyComplete(totalBytes: Int64)
    /// An answer that proves nothing either way (a 416 from a server that refuses ranges it could
    /// serve, a 206 for other bytes than asked or with no readable `Content-Range`): keep the
    /// partial file and ask for the whole body; its validator then decides (see
    /// ``appendAfterSkipping(_:)``).
    case recheckWithoutRange
    /// Some other status (404, 500...): not an answer about the range. Keep the partial file (the
    /// failure may pass) and let validation report the status as for any request.
    case notARangeResponse(status: Int)

    /// Why a resume restarts from zero.
    enum RestartReason: Equatable, Sendable {
        /// A 200 without the partial file's validator: the server's file changed (or nothing shows
        /// that it did not).
        case wholeFileSent
        /// A 206 or 416 for a file whose size differs from the size known before (or is smaller
        /// than the bytes already kept).
        case lengthChanged(ContentRange)
        /// A 416 carrying a validator other than the partial file's: the file changed.
        case validatorChanged

        /// `true` when the response's body is the whole file and can be written from byte 0.
        var responseBodyIsWholeFile: Bool { self == .wholeFileSent }
    }

    /// Decides from the response to a resume request.
    /// - Parameters:
    ///   - offset: N, the number of bytes already in the partial file.
    ///   - status: The response's status code.
    ///   - headers: The response's headers.
    ///   - expectedTotal: The whole file's size known from before, if any.
    ///   - validator: The validator the partial file's bytes were served with, if any.
    static func decide(
        offset: Int64, status: Int, headers: HTTPHeaders, expectedTotal: Int64? = nil,
        validator: ResumeData.Validator? = nil
    ) -> ResumeDecision {
        let contentRange = headers["Content-Range"].flatMap(ContentRange.init)
        let current = ResumeData.Validator.forIfRange(from: headers)
        switch status {
        case 200:
            let length = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard let validator, current == validator,
                length.map({ $0 >= offset && (expectedTotal == nil || expectedTotal == $0) }) ?? true
            else { return .restartFromZero(.wholeFileSent) }
            return .appendAfterSkipping(offset)
        case 206:
            // A 206 for other bytes than asked (a range elsewhere, no readable single range): a
            // lying or broken server, not a changed file. Nothing on disk is dropped for it: the
            // whole body is asked for, and its validator decides.
            guard let contentRange, let range = contentRange.range, range.lowerBound == offset else {
                return .recheckWithoutRange
            }
            if let expectedTotal, let length = contentRange.completeLength, length != expectedTotal {
                return .restartFromZero(.lengthChanged(contentRange))
            }
            return .append(contentRange)
        case 416:
            return unsatisfiable(
                offset: offset, contentRange: contentRange, expectedTotal: expectedTotal,
                validator: validator, current: current)
        default:
            return .notARangeResponse(status: status)
        }
    }

    /// A 416 to `Range: bytes=N-` with `If-Range`. A server that follows RFC 9110 sends it only when
    /// the validator matched and N is at or past the end, with `Content-Range: bytes */LENGTH`.
    /// The partial file is complete when that length is N and nothing contradicts the validator; it
    /// is dropped only when the answer shows the file changed (another validator, another length);
    /// anything else is rechecked with a whole-body request.
    private static func unsatisfiable(
        offset: Int64, contentRange: ContentRange?, expectedTotal: Int64?, validator: ResumeData.Validator?,
        current: ResumeData.Validator?
    ) -> ResumeDecision {
        if let current, current != validator {
            return .restartFromZero(.validatorChanged)
        }
        if let contentRange, contentRange.range == nil, let length = contentRange.completeLength {
            if length < offset || (expectedTotal != nil && expectedTotal != length) {
                return .restartFromZero(.lengthChanged(contentRange))
            }
            return length == offset ? .alreadyComplete(totalBytes: length) : .recheckWithoutRange
        }
        // No length in the answer: complete only when the size known from before says so and the
        // answer names the same validator.
        if expectedTotal == offset, let validator, current == validator {
            return .alreadyComplete(totalBytes: offset)
        }
        return .recheckWithoutRange
    }
}

// MARK: - Validators and resume headers

extension ResumeData.Validator {
    /// The `If-Range` validator a response allows (RFC 9110 §13.1.5), or nil when there is none and
    /// a later resume would not be safe:
    /// - a strong `ETag` (`"…"`) is used;
    /// - an `ETag` without quotes (`abc123`: invalid syntax, common in the wild) is not marked
    ///   weak, so it is used too, and sent back exactly as the server sent it: the server that made
    ///   the tag compares it with its own spelling; one that cannot match it ignores the range and
    ///   sends the whole file, which is still correct;
    /// - a weak one (`W/"…"`) must not be sent in `If-Range`, and because the representation *has*
    ///   an entity tag, its `Last-Modified` must not be sent either: nil;
    /// - with no `ETag` at all, `Last-Modified` is used when it is strong: at least one second
    ///   older than the response's `Date` (or no `Date` to compare with).
    static func forIfRange(from headers: HTTPHeaders) -> Self? {
        if let tag = headers["ETag"]?.trimmingCharacters(in: .whitespaces) {
            return isStrongEntityTag(tag) || isUnquotedEntityTag(tag) ? .entityTag(tag) : nil
        }
        guard let lastModified = headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces),
            let modified = HTTPDate.parse(lastModified)
        else { return nil }
        if let dateText = headers["Date"], let date = HTTPDate.parse(dateText),
            date.timeIntervalSince(modified) < 1
        {
            return nil  // modified within the second the response was made: could change unseen
        }
        return .lastModified(lastModified)
    }

    /// `"…"` with only `etagc` characters inside (RFC 9110 §8.8.3), not prefixed by `W/`.
    static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return false
        }
        return bytes.dropFirst().dropLast().allSatisfy(isEntityTagCharacter)
    }

    /// The opaque part of a tag sent without its quotes: one or more `etagc` characters (no quote,
    /// no space), not starting with the weak marker `W/`.
    static func isUnquotedEntityTag(_ tag: String) -> Bool {
        !tag.isEmpty && !tag.hasPrefix("W/") && tag.utf8.allSatisfy(isEntityTagCharacter)
    }

    /// `etagc` (RFC 9110 §8.8.3): `!`, `#` to `~`, and obs-text.
    private static func isEntityTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80
    }
}

extension ResumeData {
    /// The headers a resume request adds: `Range: bytes=N-` and `If-Range`. nil when resuming is
    /// not safe (no bytes, or no validator): then download from zero without them.
    var resumeHeaders: HTTPHeaders? {
        guard isResumable, let validator else { return nil }
        return ["Range": "bytes=\(bytesReceived)-", "If-Range": validator.headerValue]
    }

    /// Resume data for a download that stopped after `bytesReceived` bytes.
    /// - Parameters:
    ///   - request: The request that was sent (its URL, method and headers are kept, minus credentials).
    ///   - responseHeaders: The headers of the response the bytes came from (validator, length).
    ///   - status: That response's status (the total comes from `Content-Range` for a 206).
    ///   - partialFileURL: The partial file.
    ///   - bytesReceived: How many bytes it holds in all.
    /// - Returns: nil when the request has no URL.
    static func make(
        request: URLRequest, responseHeaders: HTTPHeaders, status: Int, partialFileURL: URL,
        bytesReceived: Int64
    ) -> ResumeData? {
        guard let url = request.url?.absoluteString else { return nil }
        let total: Int64? =
            status == 206
            ? responseHeaders["Content-Range"].flatMap(ContentRange.init)?.completeLength
            : responseHeaders["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        return ResumeData(
            url: url,
            method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
            headers: request.headers,
            partialFileURL: partialFileURL,
            bytesReceived: bytesReceived,
            totalBytes: total,
            validator: .forIfRange(from: responseHeaders)
        )
    }
}

extension HTTPHeaders {
    /// A response's header fields (Foundation gives them as `[AnyHashable: Any]`).
    init(responseHeadersOf response: HTTPURLResponse) {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String {
                headers[name] = "\(value)"
            }
        }
        self.init(headers)
    }
}
