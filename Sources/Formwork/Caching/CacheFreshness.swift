import Foundation

/// How long a stored response stays fresh and how old it is (RFC 9111 §4.2), as pure functions:
/// the time comes in as a parameter.
enum CacheFreshness {
    /// The status codes that are heuristically cacheable (RFC 9110 §15.1): with no explicit
    /// expiration time, a cache may give them a heuristic freshness lifetime.
    static let heuristicallyCacheableStatusCodes: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// The fraction of the time since `Last-Modified` used as a heuristic lifetime (RFC 9111
    /// §4.2.2 suggests no more than 10 %).
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime given: one day.
    static let heuristicCap: TimeInterval = 86_400

    /// The freshness lifetime of a response (RFC 9111 §4.2.1), in seconds.
    ///
    /// `max-age` wins; `s-maxage` is ignored (this is a private cache). Then `Expires` minus
    /// `Date` (the response time when `Date` is missing or malformed); a malformed `Expires` means
    /// already stale, as does a malformed `max-age`. With no explicit expiration time, a heuristic
    /// lifetime (10 % of the time since `Last-Modified`, at most a day) applies only to a
    /// heuristically cacheable status or an explicit `public`, and only without `no-cache`.
    /// - Parameters:
    ///   - statusCode: The response's status.
    ///   - headers: The response's header fields.
    ///   - responseTime: When the response arrived.
    /// - Returns: The lifetime in seconds (0 when none).
    static func lifetime(statusCode: Int, headers: HTTPHeaders, responseTime: Date) -> TimeInterval {
        let control = CacheControl(headers["Cache-Control"])
        if let maxAge = control.seconds("max-age") {
            return TimeInterval(maxAge.value ?? 0)
        }
        let date = headers["Date"].flatMap(HTTPDate.parse) ?? responseTime
        if let expires = headers["Expires"] {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        let allowsHeuristic =
            heuristicallyCacheableStatusCodes.contains(statusCode) || control.has("public")
        guard allowsHeuristic, !control.has("no-cache"),
            let lastModified = headers["Last-Modified"].flatMap(HTTPDate.parse)
        else { return 0 }
        return min(heuristicCap, max(0, date.timeIntervalSince(lastModified)) * heuristicFraction)
    }

    /// Whether the response states its own expiration time (`max-age` or `Expires`).
    static func hasExplicitExpiration(_ headers: HTTPHeaders) -> Bool {
        CacheControl(headers["Cache-Control"]).has("max-age") || headers["Expires"] != nil
    }

    /// The `Age` a response carries (RFC 9111 §5.1): the first member when it is a list (one line
    /// `7200, 0`, or several lines joined), `nil` when absent or when that member is not a
    /// delta-seconds value (the field is then ignored).
    /// - Parameter value: The `Age` field value.
    static func ageValue(_ value: String?) -> Int? {
        guard let value, let first = value.split(separator: ",", omittingEmptySubsequences: false).first
        else { return nil }
        return CacheControl.DeltaSeconds(CacheControl.trim(first)).value
    }

    /// The current age of a stored response (RFC 9111 §4.2.3), in seconds: the server's `Age`,
    /// corrected by the round trip and by how far `Date` lags, plus the time it spent stored.
    /// - Parameters:
    ///   - headers: The stored response's header fields.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    ///   - now: The current time.
    /// - Returns: The age in seconds (never negative).
    static func currentAge(headers: HTTPHeaders, requestTime: Date, responseTime: Date, now: Date)
        -> TimeInterval
    {
        let ageValue = TimeInterval(ageValue(headers["Age"]) ?? 0)
        let dateValue = headers["Date"].flatMap(HTTPDate.parse) ?? responseTime
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// The lifetime and current age of an entry at `now`.
    static func assess(_ entry: CacheEntry, now: Date) -> (lifetime: TimeInterval, age: TimeInterval) {
        (
            lifetime(statusCode: entry.statusCode, headers: entry.headers, responseTime: entry.responseTime),
            currentAge(
                headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime,
                now: now)
        )
    }
}
