import Foundation

/// Revalidating a stored response (RFC 9111 §4.3): the conditional fields to send and how a
/// `304 Not Modified` updates the stored response.
enum CacheRevalidation {
    /// The conditional request fields for a stored response: `If-None-Match` from its `ETag`,
    /// `If-Modified-Since` from its `Last-Modified`. Empty when it has no validator.
    /// - Parameter entry: The stored response.
    static func conditionalFields(for entry: CacheEntry) -> HTTPHeaders {
        var fields = HTTPHeaders()
        if let etag = entry.headers["ETag"] { fields["If-None-Match"] = etag }
        if let lastModified = entry.headers["Last-Modified"] { fields["If-Modified-Since"] = lastModified }
        return fields
    }

    /// Fields a 304 never replaces in the stored response: its length and content coding
    /// describe the stored body, not the empty 304.
    static let keptFieldNames: Set<String> = ["content-length", "content-encoding"]

    /// The stored response updated by a `304` (RFC 9111 §3.2, §4.3.4): each field of the 304
    /// replaces the stored one, except hop-by-hop fields and those of ``keptFieldNames``; the
    /// exchange times become the 304's, so its freshness starts again (the stored `Age`, and
    /// `Date` when the 304 has none, are dropped: they described the old exchange).
    /// - Parameters:
    ///   - entry: The stored response that was revalidated.
    ///   - notModified: The 304's header fields.
    ///   - requestTime: When the conditional request was sent.
    ///   - responseTime: When the 304 arrived.
    /// - Returns: The updated entry, or `nil` when the 304 names another representation (its
    ///   strong `ETag` differs from the stored one).
    static func merge(
        _ entry: CacheEntry, notModified: HTTPHeaders, requestTime: Date, responseTime: Date
    ) -> CacheEntry? {
        if let new = notModified["ETag"], let old = entry.headers["ETag"],
            !new.hasPrefix("W/"), !old.hasPrefix("W/"), new != old
        {
            return nil
        }
        var merged = entry
        // The 304's own age counts from now on: an old `Age` or `Date` must not make it stale.
        merged.headers["Age"] = nil
        if notModified["Date"] == nil { merged.headers["Date"] = nil }
        for field in CacheStorability.storedFields(notModified)
        where !keptFieldNames.contains(field.name.lowercased()) {
            merged.headers[field.name] = field.value
        }
        merged.requestTime = requestTime
        merged.responseTime = responseTime
        return merged
    }

    /// The stored `GET` response updated by a `200` to a `HEAD` request (RFC 9111 §4.3.5), as a
    /// `304` would update it.
    /// - Returns: `nil` when the `HEAD` response describes another representation: an `ETag` or
    ///   `Last-Modified` it carries differs from the stored one, or its `Content-Length` differs
    ///   from the stored length.
    static func freshen(
        _ entry: CacheEntry, head: HTTPHeaders, requestTime: Date, responseTime: Date
    ) -> CacheEntry? {
        for name in ["ETag", "Last-Modified"] {
            if let value = head[name], value != entry.headers[name] { return nil }
        }
        if let length = head["Content-Length"],
            length != (entry.headers["Content-Length"] ?? String(entry.body.count))
        {
            return nil
        }
        return merge(entry, notModified: head, requestTime: requestTime, responseTime: responseTime)
    }
}
