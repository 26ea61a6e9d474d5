import Foundation

/// How the cache answers a request from a stored response it may use: the request's own
/// conditions (RFC 9111 §4.3.2) and its `Range` (RFC 9110 §14) shape what is delivered.
enum CacheAnswer {
    /// What a request's own conditional fields mean for a stored response.
    enum Conditions: Sendable, Equatable {
        /// The request has no conditional fields.
        case none
        /// `If-None-Match` or `If-Modified-Since` holds for the stored response: it is the one the
        /// app has, so the answer is a `304`.
        case notModified
        /// The conditions do not hold (the app has another representation): the stored response
        /// is the answer.
        case modified
        /// Conditions the cache does not evaluate (`If-Match`, `If-Unmodified-Since`, `If-Range`):
        /// the request goes to the server as it is.
        case sendOn
    }

    /// Evaluates the request's own conditional fields against a stored response, as RFC 9110
    /// §13.2.2 orders them: `If-None-Match` (weak comparison; `*` matches any stored response),
    /// else `If-Modified-Since` against the stored `Last-Modified` (else `Date`, else the time it
    /// arrived). An `If-Modified-Since` that is not an HTTP date is ignored. A stored response
    /// other than a 2xx ignores them all, as its server would: it is the answer.
    /// - Parameters:
    ///   - entry: The stored response.
    ///   - request: The request's header fields.
    static func conditions(_ entry: CacheEntry, request: HTTPHeaders) -> Conditions {
        let names = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"]
        guard names.contains(where: { request[$0] != nil }) else { return .none }
        // A server ignores preconditions when its answer would not be a 2xx (RFC 9110 §13.2.1).
        guard (200..<300).contains(entry.statusCode) else { return .modified }
        if ["If-Match", "If-Unmodified-Since", "If-Range"].contains(where: { request[$0] != nil }) {
            return .sendOn
        }
        if let ifNoneMatch = request["If-None-Match"] {
            let tags = ifNoneMatch.split(separator: ",").map { CacheControl.trim($0) }
            if tags.contains("*") { return .notModified }
            guard let etag = entry.headers["ETag"] else { return .modified }
            return tags.contains { weakTag($0) == weakTag(etag) } ? .notModified : .modified
        }
        guard let ifModifiedSince = request["If-Modified-Since"] else { return .none }
        guard let since = HTTPDate.parse(ifModifiedSince) else { return .modified }
        let modified =
            entry.headers["Last-Modified"].flatMap { HTTPDate.parse($0) }
            ?? entry.headers["Date"].flatMap { HTTPDate.parse($0) } ?? entry.responseTime
        return modified <= since ? .notModified : .modified
    }

    /// An entity tag without its weakness indicator, for the weak comparison.
    private static func weakTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// The stored response as it may be served without revalidation: without the fields a
    /// qualified `no-cache="Field, …"` names (RFC 9111 §5.2.2.4).
    static func unvalidated(_ entry: CacheEntry) -> CacheEntry {
        guard let names = entry.cacheControl.argument("no-cache") else { return entry }
        let hidden = Set(names.split(separator: ",").map { CacheControl.trim($0).lowercased() })
        var answer = entry
        answer.headers = HTTPHeaders(entry.headers.filter { !hidden.contains($0.name.lowercased()) })
        return answer
    }

    /// The cache's `504 Gateway Timeout` for a request with `only-if-cached` that nothing stored
    /// may answer (RFC 9111 §5.2.1.7).
    static func gatewayTimeout(url: String, now: Date) -> CacheEntry {
        CacheEntry(
            url: url, statusCode: 504, headers: ["Content-Length": "0"], body: Data(), requestTime: now,
            responseTime: now, vary: [])
    }

    /// The header fields a cache's `304` carries (RFC 9110 §15.4.5): those that describe the
    /// stored response's freshness and validators, not its body.
    static let notModifiedFieldNames: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "last-modified", "vary",
    ]

    /// A `304 Not Modified` for the stored response, made by the cache.
    static func notModified(_ entry: CacheEntry) -> CacheEntry {
        var answer = entry
        answer.statusCode = 304
        answer.headers = HTTPHeaders(
            entry.headers.filter { notModifiedFieldNames.contains($0.name.lowercased()) })
        answer.body = Data()
        return answer
    }

    /// The stored response shaped by the request's `Range`: a `206` with the one range asked
    /// for, when the stored response is a complete `200` without a content coding (its body is
    /// the representation's bytes), or a stored `206` that holds it (see ``CachePartial``). Otherwise (no `Range`, several ranges, another unit, a range
    /// that cannot be satisfied) the stored response itself, as a server that ignores `Range` would.
    /// - Parameters:
    ///   - entry: The stored response.
    ///   - request: The request's header fields.
    static func ranged(_ entry: CacheEntry, request: HTTPHeaders) -> CacheEntry {
        if entry.statusCode == 206 { return CachePartial.slice(entry, request: request) }
        guard let value = request["Range"], entry.statusCode == 200,
            (entry.headers["Content-Encoding"] ?? "identity").lowercased() == "identity",
            let range = ByteRange(value)?.resolved(length: entry.body.count)
        else { return entry }
        var answer = entry
        answer.statusCode = 206
        answer.headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound)/\(entry.body.count)"
        answer.headers["Content-Length"] = String(range.count)
        answer.body = entry.body.subdata(in: range.lowerBound..<(range.upperBound + 1))
        return answer
    }
}

/// One byte range of a `Range` field (RFC 9110 §14.1.2): `bytes=first-last`, `bytes=first-` or
/// `bytes=-suffix`. A field with several ranges or another unit is not one.
struct ByteRange: Sendable, Equatable {
    /// The first byte, or `nil` for a suffix range.
    var first: Int?
    /// The last byte (`nil`: to the end), or the suffix length when `first` is `nil`.
    var last: Int?

    /// Reads a `Range` value; `nil` unless it is exactly one byte range.
    init?(_ value: String) {
        let trimmed = CacheControl.trim(Substring(value))
        guard let equals = trimmed.firstIndex(of: "="),
            trimmed[..<equals].lowercased() == "bytes"
        else { return nil }
        let spec = CacheControl.trim(trimmed[trimmed.index(after: equals)...])
        let parts = spec.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(text)
        }
        if parts[0].isEmpty {
            guard let suffix = number(parts[1]) else { return nil }
            self.first = nil
            self.last = suffix
        } else {
            guard let first = number(parts[0]) else { return nil }
            let last = parts[1].isEmpty ? nil : number(parts[1])
            if !parts[1].isEmpty && last == nil { return nil }
            if let last, last < first { return nil }
            self.first = first
            self.last = last
        }
    }

    /// The bytes this range selects in a representation of `length` bytes, or `nil` when it
    /// selects none (unsatisfiable).
    func resolved(length: Int) -> ClosedRange<Int>? {
        guard length > 0 else { return nil }
        guard let first else {
            guard let suffix = last, suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard first < length else { return nil }
        return first...min(last ?? (length - 1), length - 1)
    }

    /// Whether this range lies within `available` of a representation of `length` bytes.
    func isWithin(_ available: ClosedRange<Int>, length: Int) -> Bool {
        guard let range = resolved(length: length) else { return false }
        return available.contains(range.lowerBound) && available.contains(range.upperBound)
    }
}
