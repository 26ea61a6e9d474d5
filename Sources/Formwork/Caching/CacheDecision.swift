import Foundation

/// The cache's two decisions for one exchange, as pure functions of their inputs (the time
/// included): what to do before sending a request, and what to do with what came back.
enum CacheDecision {
    /// What to do with a request before it is sent.
    enum Lookup: Sendable, Equatable {
        /// Answer with the stored response; nothing is sent.
        case fresh(CacheEntry)
        /// Answer with the stale stored response now, and revalidate it in the background.
        case staleWhileRevalidate(CacheEntry)
        /// Send the request with these conditional fields (none when the entry has no validator);
        /// the entry answers a `304`, or a failure within `stale-if-error`.
        case revalidate(CacheEntry, conditionalFields: HTTPHeaders)
        /// Nothing usable is stored: send the request as it is.
        case miss
    }

    /// Decides how to answer a request given what is stored.
    ///
    /// With ``CachePolicy/useProtocol``: a fresh entry answers, unless the request asks for
    /// revalidation (`no-cache`, `max-age` exceeded, `min-fresh`, `Pragma: no-cache`) and the
    /// entry is not `immutable`; a response marked `no-cache` (without field names) is always
    /// revalidated. A stale entry
    /// is served at once within its `stale-while-revalidate` window (not with `must-revalidate` or
    /// `no-cache`), or within the request's `max-stale`; otherwise it is revalidated.
    /// ``CachePolicy/returnCacheElseLoad``, ``CachePolicy/cacheOnly`` and
    /// ``CachePolicy/cacheThenNetwork`` take any stored entry; ``CachePolicy/reloadIgnoringCache``
    /// none.
    /// - Parameters:
    ///   - entry: The stored response that matches the request (its `Vary` fields included).
    ///   - request: The request's header fields.
    ///   - policy: The request's cache policy.
    ///   - now: The current time.
    /// - Returns: The decision.
    static func lookup(_ entry: CacheEntry?, request: HTTPHeaders, policy: CachePolicy, now: Date) -> Lookup {
        guard let entry, policy != .reloadIgnoringCache else { return .miss }
        if policy != .useProtocol { return .fresh(entry) }
        let (lifetime, age) = CacheFreshness.assess(entry, now: now)
        let stored = entry.cacheControl
        let asked = CacheControl(request["Cache-Control"])
        let revalidate = Lookup.revalidate(
            entry, conditionalFields: CacheRevalidation.conditionalFields(for: entry))
        // `no-cache="Field"` forbids only those fields without revalidation (see `CacheAnswer`).
        if stored.has("no-cache"), stored.argument("no-cache") == nil { return revalidate }
        let isFresh = age < lifetime
        if isFresh && stored.has("immutable") { return .fresh(entry) }
        let asksForValidation =
            asked.has("no-cache") || (request["Pragma"]?.lowercased().contains("no-cache") ?? false)
            || asked.seconds("max-age").map { age > TimeInterval($0.value ?? 0) } ?? false
            || asked.seconds("min-fresh").map { age + TimeInterval($0.value ?? 0) >= lifetime } ?? false
        if asksForValidation { return revalidate }
        if isFresh { return .fresh(entry) }
        let staleness = age - lifetime
        if stored.has("must-revalidate") { return revalidate }
        if let maxStale = asked.directives["max-stale"] {
            // `max-stale` without a value accepts any staleness.
            guard let limit = maxStale.map(CacheControl.DeltaSeconds.init) else { return .fresh(entry) }
            if let seconds = limit.value, staleness <= TimeInterval(seconds) { return .fresh(entry) }
        }
        if let window = stored.seconds("stale-while-revalidate")?.value, staleness <= TimeInterval(window) {
            return .staleWhileRevalidate(entry)
        }
        return revalidate
    }

    /// What to do with what came back for a request.
    enum Settlement: Sendable, Equatable {
        /// Deliver the response as it is; nothing changes in the cache.
        case pass
        /// Deliver the response as it is, and store it as this entry.
        case store(CacheEntry)
        /// The `304` confirmed the stored response: deliver this (updated) entry and store it.
        case revalidated(CacheEntry)
        /// The server failed (transport error or 5xx) within `stale-if-error`: deliver the stale
        /// entry instead.
        case serveStale(CacheEntry)
        /// An unsafe method succeeded: deliver the response and drop what is stored for these URLs.
        case invalidate([String])
    }

    /// One finished exchange as the settlement reads it.
    struct Exchange: Sendable {
        /// The request method.
        var method: String
        /// The final URL of the request.
        var url: String
        /// The request's header fields.
        var requestHeaders: HTTPHeaders
        /// Whether the request carries credentials (see ``CacheStorability``).
        var hasCredentials: Bool
        /// The entry the request was sent to revalidate, if any.
        var stored: CacheEntry?
        /// When the request was sent.
        var requestTime: Date
        /// The status, when a response arrived.
        var statusCode: Int?
        /// The response's header fields (empty without a response).
        var responseHeaders: HTTPHeaders
        /// The response body.
        var body: Data
        /// Whether the transport failed (no usable response).
        var transportFailed: Bool
    }

    /// The methods that never change anything on the server (RFC 9110 §9.2.1).
    static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// Decides what an exchange means for the cache.
    ///
    /// A `HEAD` response only freshens a stored `GET` response. An unsafe method answered with 2xx
    /// or 3xx invalidates its URL, and the `Location` and
    /// `Content-Location` URLs of the same origin (RFC 9111 §4.4). A transport failure or a 5xx
    /// serves the entry that was being revalidated while it is within `stale-if-error` (from the
    /// response or the request; never with `must-revalidate`). A `304` for a stored entry
    /// becomes that entry, updated. A storable response (of any final status, see
    /// ``CacheStorability/canStore(method:requestHeaders:hasCredentials:statusCode:responseHeaders:)``)
    /// is stored.
    /// - Parameters:
    ///   - exchange: What was sent and what came back.
    ///   - now: The time the response arrived.
    /// - Returns: The settlement.
    static func settle(_ exchange: Exchange, now: Date) -> Settlement {
        if !safeMethods.contains(exchange.method) {
            guard let status = exchange.statusCode, (200..<400).contains(status), !exchange.transportFailed
            else {
                return .pass
            }
            return .invalidate(invalidatedURLs(exchange))
        }
        if exchange.method == "HEAD" { return settleHead(exchange, now: now) }
        let failed = exchange.transportFailed || (exchange.statusCode ?? 500) >= 500
        if failed, let stored = exchange.stored,
            allowsStaleIfError(stored, request: exchange.requestHeaders, now: now)
        {
            return .serveStale(stored)
        }
        // A 5xx that no stale response replaces is a response like any other: stored when it
        // says for how long (see `CacheStorability`).
        guard !exchange.transportFailed, let status = exchange.statusCode else { return .pass }
        if status == 304, let stored = exchange.stored {
            guard
                let merged = CacheRevalidation.merge(
                    stored, notModified: exchange.responseHeaders, requestTime: exchange.requestTime,
                    responseTime: now)
            else { return .pass }
            return .revalidated(merged)
        }
        // A 206 passes the same checks as a complete response, then those of `CachePartial`.
        guard
            CacheStorability.canStore(
                method: exchange.method, requestHeaders: exchange.requestHeaders,
                hasCredentials: exchange.hasCredentials, statusCode: status == 206 ? 200 : status,
                responseHeaders: exchange.responseHeaders)
        else { return .pass }
        let names = CacheVary.names(in: exchange.responseHeaders) ?? []
        let entry = CacheEntry(
            url: exchange.url, statusCode: status,
            headers: CacheStorability.storedFields(exchange.responseHeaders), body: exchange.body,
            requestTime: exchange.requestTime, responseTime: now,
            vary: CacheVary.values(for: names, request: exchange.requestHeaders))
        guard status == 206 else { return .store(entry) }
        return CachePartial.storable(entry, request: exchange.requestHeaders).map(Settlement.store) ?? .pass
    }

    /// A `HEAD` response freshens the stored `GET` response it was sent for (RFC 9111 §4.3.5):
    /// a `200` whose validators and length match it updates its fields; one that does not drops
    /// it (it describes another representation). Nothing else changes the cache.
    private static func settleHead(_ exchange: Exchange, now: Date) -> Settlement {
        guard let stored = exchange.stored, !exchange.transportFailed, exchange.statusCode == 200 else {
            return .pass
        }
        guard
            let freshened = CacheRevalidation.freshen(
                stored, head: exchange.responseHeaders, requestTime: exchange.requestTime, responseTime: now)
        else { return .invalidate([exchange.url]) }
        return .store(freshened)
    }

    /// Whether `stale-if-error` lets a stored response answer a failure now (RFC 5861 §4).
    static func allowsStaleIfError(_ entry: CacheEntry, request: HTTPHeaders, now: Date) -> Bool {
        let stored = entry.cacheControl
        guard !stored.has("must-revalidate"), !stored.has("no-cache") else { return false }
        let windows = [stored, CacheControl(request["Cache-Control"])].compactMap {
            $0.seconds("stale-if-error")?.value
        }
        guard let window = windows.max() else { return false }
        let (lifetime, age) = CacheFreshness.assess(entry, now: now)
        return age - lifetime <= TimeInterval(window)
    }

    /// The URL of an unsafe request, plus `Location` and `Content-Location` when they resolve to
    /// the same origin (scheme, host and port).
    private static func invalidatedURLs(_ exchange: Exchange) -> [String] {
        guard let base = URL(string: exchange.url) else { return [exchange.url] }
        var urls = [exchange.url]
        for name in ["Location", "Content-Location"] {
            guard let value = exchange.responseHeaders[name],
                let target = URL(string: value, relativeTo: base)?.absoluteURL,
                target.scheme?.lowercased() == base.scheme?.lowercased(),
                target.host?.lowercased() == base.host?.lowercased(), target.port == base.port
            else { continue }
            urls.append(target.absoluteString)
        }
        return urls
    }
}
