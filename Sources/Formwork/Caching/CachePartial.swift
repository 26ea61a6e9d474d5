import Foundation

/// Partial responses (`206`, RFC 9111 §3.3-3.4), kept simple: one stored `206` per response,
/// beside the complete one, answers later requests for bytes within its range; a `206` that holds
/// every byte is stored as the complete response. Parts are never combined with one another.
enum CachePartial {
    /// A `Content-Range` of one range of bytes, `bytes first-last/length` (`length` `nil` for `*`).
    struct ContentRange: Sendable, Equatable {
        var first: Int
        var last: Int
        var length: Int?

        /// Reads the field value; `nil` unless it is one satisfied byte range.
        init?(_ value: String) {
            let trimmed = CacheControl.trim(Substring(value))
            guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
            let spec = trimmed.dropFirst(6)
            let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2 else { return nil }
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
                first <= last
            else { return nil }
            let length = halves[1] == "*" ? nil : Self.number(halves[1])
            if halves[1] != "*" {
                guard let length, last < length else { return nil }
            }
            self.first = first
            self.last = last
            self.length = length
        }

        private static func number(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
                return nil
            }
            return Int(text)
        }
    }

    /// The entry to store for a `206`, or `nil` when it is not one the cache keeps: the request
    /// asked for one range, the response has one `Content-Range` with a known length whose size
    /// matches the body, and no content coding (its bytes are the representation's). A `206` of
    /// every byte becomes a complete `200`.
    /// - Parameter entry: The `206` as it would be stored.
    static func storable(_ entry: CacheEntry, request: HTTPHeaders) -> CacheEntry? {
        guard entry.statusCode == 206, let asked = request["Range"], ByteRange(asked) != nil,
            (entry.headers["Content-Encoding"] ?? "identity").lowercased() == "identity",
            let range = entry.headers["Content-Range"].flatMap(ContentRange.init), let length = range.length,
            range.last - range.first + 1 == entry.body.count
        else { return nil }
        guard range.first == 0, range.last == length - 1 else { return entry }
        var complete = entry
        complete.statusCode = 200
        complete.headers["Content-Range"] = nil
        complete.headers["Content-Length"] = String(length)
        return complete
    }

    /// Whether a stored `206` holds every byte the request's `Range` asks for.
    static func answers(_ entry: CacheEntry, request: HTTPHeaders) -> Bool {
        guard let range = entry.headers["Content-Range"].flatMap(ContentRange.init),
            let length = range.length,
            let asked = request["Range"].flatMap(ByteRange.init)
        else { return false }
        return asked.isWithin(range.first...range.last, length: length)
    }

    /// The part of a stored `206` the request's `Range` asks for, as a `206` (the stored one when
    /// it does not hold that part).
    static func slice(_ entry: CacheEntry, request: HTTPHeaders) -> CacheEntry {
        guard let stored = entry.headers["Content-Range"].flatMap(ContentRange.init),
            let length = stored.length,
            let asked = request["Range"].flatMap(ByteRange.init)?.resolved(length: length),
            stored.first <= asked.lowerBound, asked.upperBound <= stored.last
        else { return entry }
        var answer = entry
        let start = asked.lowerBound - stored.first
        answer.body = entry.body.subdata(in: start..<(start + asked.count))
        answer.headers["Content-Range"] = "bytes \(asked.lowerBound)-\(asked.upperBound)/\(length)"
        answer.headers["Content-Length"] = String(asked.count)
        return answer
    }
}
