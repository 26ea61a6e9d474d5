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

/// What to do with the answer to a resume request (one sent with `Range: bytes=N-` and `If-Range`).
enum ResumeDecision: Equatable, Sendable {
    /// A 206 whose range starts at N: append the body to the partial file.
    case append(ContentRange)
    /// The partial file cannot be continued: truncate it and start from byte 0. When the reason's
    /// ``RestartReason/responseBodyIsWholeFile`` is `true` (a 200), this response's body is the
    /// whole file: write it from byte 0. Otherwise discard this response and send the request
    /// again without `Range`.
    case restartFromZero(RestartReason)
    /// A 416 saying the file has exactly N bytes: the partial file is already complete.
    case alreadyComplete(totalBytes: Int64)
    /// Some other status (404, 500...): not an answer about the range. Keep the partial file (the
    /// failure may pass) and let validation report the status as for any request.
    case notARangeResponse(status: Int)

    /// Why a resume restarts from zero.
    enum RestartReason: Equatable, Sendable {
        /// A 200: the server ignored the range or the validator no longer matched (the file changed).
        case wholeFileSent
        /// A 206 whose range does not start at the offset.
        case rangeMismatch(ContentRange)
        /// A 206 with no readable single-range `Content-Range` (missing, garbled, or multipart).
        case missingContentRange
        /// A 206 for a file whose size differs from the size known before.
        case lengthChanged(ContentRange)
        /// A 416 that does not prove the partial file complete.
        case unsatisfiableRange

        /// `true` when the response's body is the whole file and can be written from byte 0.
        var responseBodyIsWholeFile: Bool { self == .wholeFileSent }
    }

    /// Decides from the response to a resume request.
    /// - Parameters:
    ///   - offset: N, the number of bytes already in the partial file.
    ///   - status: The response's status code.
    ///   - headers: The response's headers.
    ///   - expectedTotal: The whole file's size known from before, if any.
    static func decide(offset: Int64, status: Int, headers: HTTPHeaders, expectedTotal: Int64? = nil)
        -> ResumeDecision
    {
        let contentRange = headers["Content-Range"].flatMap(ContentRange.init)
        switch status {
        case 200:
            return .restartFromZero(.wholeFileSent)
        case 206:
            guard let contentRange, let range = contentRange.range else {
                return .restartFromZero(.missingContentRange)
            }
            guard range.lowerBound == offset else { return .restartFromZero(.rangeMismatch(contentRange)) }
            if let expectedTotal, let length = contentRange.completeLength, length != expectedTotal {
                return .restartFromZero(.lengthChanged(contentRange))
            }
            return .append(contentRange)
        case 416:
            if let length = contentRange?.completeLength, contentRange?.range == nil, length == offset,
                expectedTotal == nil || expectedTotal == length
            {
                return .alreadyComplete(totalBytes: length)
            }
            return .restartFromZero(.unsatisfiableRange)
        default:
            return .notARangeResponse(status: status)
        }
    }
}

// MARK: - Validators and resume headers

extension ResumeData.Validator {
    /// The `If-Range` validator a response allows (RFC 9110 §13.1.5), or nil when there is none and
    /// a later resume would not be safe:
    /// - a strong `ETag` (`"…"`) is used;
    /// - a weak one (`W/"…"`) must not be sent in `If-Range`, and because the representation *has*
    ///   an entity tag, its `Last-Modified` must not be sent either: nil;
    /// - with no `ETag` at all, `Last-Modified` is used when it is strong: at least one second
    ///   older than the response's `Date` (or no `Date` to compare with).
    static func forIfRange(from headers: HTTPHeaders) -> Self? {
        if let tag = headers["ETag"]?.trimmingCharacters(in: .whitespaces) {
            return isStrongEntityTag(tag) ? .entityTag(tag) : nil
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
        return bytes.dropFirst().dropLast().allSatisfy {
            $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80
        }
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
