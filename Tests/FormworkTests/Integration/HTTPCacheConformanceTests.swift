import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A form with request headers.
private struct ConformanceForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
}

/// What `/cache/stats` answers (the part these tests read).
private struct Hits: Decodable, Sendable {
    let hits: Int
}

/// RFC 9111 / RFC 9110 cases of issue 23 §1, against `/cache/resource`, which counts what reaches
/// the server and sends the status and field lines a test names (`status=`, `field=Name:Value`).
@Suite("HTTP cache: RFC 9111 cases")
struct HTTPCacheConformanceTests {
    let client = Client()
    let plain = Session()

    /// The address of a new resource with these query items.
    private func resource(_ items: [(String, String)]) async throws -> (id: String, url: String) {
        let id = "c-\(UUID().uuidString)"
        var components = URLComponents(string: try await DemoServer.url("/cache/resource"))
        components?.queryItems =
            [URLQueryItem(name: "id", value: id)] + items.map { URLQueryItem(name: $0.0, value: $0.1) }
        // `+` is a space to the server's form decoding, and `;` is safe as it is.
        let query = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = query
        return (id, components?.url?.absoluteString ?? "")
    }

    private func hits(_ id: String) async throws -> Int {
        let form = ConformanceForm(url: try await DemoServer.url("/cache/stats?id=\(id)"))
        return try await client.request(form, session: plain).decode(Hits.self).hits
    }

    /// Sends `form` and waits for its response as handlers see it (whatever the status).
    private func fetch(_ form: ConformanceForm, session: Session) async -> DataResponse<Data> {
        await withCheckedContinuation { continuation in
            client.request(form, session: session).responseData { continuation.resume(returning: $0) }
        }
    }

    private func cachingSession() -> Session {
        Session { $0.cache = HTTPCache() }
    }

    /// Fetches the resource twice through one cache.
    private func twice(_ items: [(String, String)], headers: HTTPHeaders = [:]) async throws -> (
        first: DataResponse<Data>, second: DataResponse<Data>, hits: Int
    ) {
        let (id, url) = try await resource(items)
        let session = cachingSession()
        let first = await fetch(ConformanceForm(url: url, headers: headers), session: session)
        let second = await fetch(ConformanceForm(url: url, headers: headers), session: session)
        return (first, second, try await hits(id))
    }

    // MARK: Required

    @Test(
        "Age as a list counts its first member (RFC 9111 §5.1): 7200 makes a max-age=3600 response stale",
        arguments: [[("field", "Age: 7200, 0")], [("field", "Age: 7200"), ("field", "Age: 0")]])
    func ageList(fields: [(String, String)]) async throws {
        let (first, second, hits) = try await twice([("cc", "max-age=3600")] + fields)
        #expect(first.response?.statusCode == 200)
        #expect(second.source == .network)
        #expect(hits == 2)
    }

    /// `date` in a format, in GMT.
    private static func format(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    @Test(
        "A malformed Expires means already stale (RFC 9111 §5.3): the second request reaches the server",
        arguments: [
            "EEE, dd MMM yyyy HH:mm:ss 'UTC'", "EEE dd MMM yyyy HH:mm:ss 'GMT'",
            "EEE,  dd MMM yyyy HH:mm:ss 'GMT'",
            "EEE, dd-MMM-yyyy HH:mm:ss 'GMT'", "EEE, dd MMM yyyy HH.mm.ss 'GMT'",
            "EEE, dd MMM yyyy H:mm:ss 'GMT'",
        ])
    func malformedExpires(format: String) async throws {
        // 03:00 an hour ahead keeps the one-digit hour one digit.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? calendar.timeZone
        let day = calendar.startOfDay(for: Date()).addingTimeInterval(86_400 * 2 + 3 * 3600)
        let (_, second, hits) = try await twice([("field", "Expires: " + Self.format(day, format))])
        #expect(second.source == .network)
        #expect(hits == 2)
    }

    @Test(
        "Every form of RFC 9110 §5.6.7 is an Expires: IMF-fixdate, RFC 850 and asctime serve from the cache",
        arguments: [
            "EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy",
        ])
    func wellFormedExpires(format: String) async throws {
        var expires = Self.format(Date().addingTimeInterval(3600), format)
        if format.hasPrefix("EEE MMM d "), let digit = expires.dropFirst(8).first, digit != " ",
            expires.dropFirst(9).first == " "
        {
            // asctime pads a one-digit day with a space.
            expires.insert(" ", at: expires.index(expires.startIndex, offsetBy: 8))
        }
        let (_, second, hits) = try await twice([("field", "Expires: " + expires)])
        #expect(second.source == .cache, "Expires: \(expires)")
        #expect(hits == 1)
    }

    @Test("Proxy-Authentication-Info is not stored nor replayed (RFC 9111 §3.1); other fields are")
    func proxyAuthenticationInfo() async throws {
        let (first, second, hits) = try await twice([
            ("cc", "max-age=60"), ("field", "Proxy-Authentication-Info: nextnonce=\"n1\""),
            ("field", "X-Kept: 1"),
        ])
        #expect(first.response?.value(forHTTPHeaderField: "Proxy-Authentication-Info") != nil)
        #expect(second.source == .cache && hits == 1)
        #expect(second.response?.value(forHTTPHeaderField: "Proxy-Authentication-Info") == nil)
        #expect(second.response?.value(forHTTPHeaderField: "X-Kept") == "1")
    }

    @Test("Set-Cookie is stored and sent back with the cached response, and not applied to cookies again")
    func setCookie() async throws {
        let name = "fw\(UUID().uuidString.prefix(8))"
        // Scoped to a host and path no other test sends to: URLSession adds the shared storage's
        // cookies to every request it matches (it once replaced another suite's own Cookie).
        let (id, loopbackURL) = try await resource([
            ("cc", "max-age=60"), ("field", "Set-Cookie: \(name)=1; Path=/cache/resource"),
        ])
        let url = loopbackURL.replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:")
        let storage = HTTPCookieStorage.shared
        let address = try #require(URL(string: url))
        let session = cachingSession()
        let cookies = { storage.cookies(for: address)?.filter { $0.name == name } ?? [] }
        defer { cookies().forEach(storage.deleteCookie) }
        let first = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.source == .network)
        // The transport's own cookie handling took the cookie (URLSession's; the AsyncHTTPClient
        // transport has none, so nothing there can apply it twice either).
        #expect(cookies().count == (TransportUnderTest.storesCookies ? 1 : 0))
        // The app forgets the cookie (a sign-out); the stored response must not bring it back.
        cookies().forEach(storage.deleteCookie)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(second.source == .cache)
        #expect(second.response?.value(forHTTPHeaderField: "Set-Cookie")?.contains("\(name)=1") == true)
        #expect(cookies().isEmpty)
        #expect(try await hits(id) == 1)
    }

    // MARK: Optimal

    @Test(
        "A final response of any status with max-age is stored and served (RFC 9111 §3)",
        arguments: [299, 400, 404, 499, 500, 502, 503, 504, 599])
    func anyStatus(status: Int) async throws {
        let (first, second, hits) = try await twice([("cc", "max-age=60"), ("status", String(status))])
        #expect(first.response?.statusCode == status)
        #expect(second.source == .cache)
        #expect(second.response?.statusCode == status)
        #expect(second.data == first.data)
        #expect(hits == 1)
    }

    @Test(
        "A redirect status without Location is the response, stored and served with max-age (RFC 9111 §3)",
        arguments: [301, 302, 303, 307, 308])
    func redirectWithoutLocation(status: Int) async throws {
        let (first, second, hits) = try await twice([("cc", "max-age=60"), ("status", String(status))])
        #expect(first.response?.statusCode == status)
        #expect(second.source == .cache)
        #expect(second.response?.statusCode == status)
        #expect(second.data == first.data)
        #expect(hits == 1)
        Self.expectRedirectBody(first, status: status)
    }

    /// A redirect status's body as it arrives: intact, except over corelibs URLSession, which
    /// drops the body of a `3xx` without `Location` (its libcurl handling expects to follow it;
    /// see the platform notes). What is stored is what arrived.
    private static func expectRedirectBody(
        _ response: DataResponse<Data>, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if TransportUnderTest.isCorelibsURLSession,
            response.response?.value(forHTTPHeaderField: "Location") == nil
        {
            #expect(response.data?.isEmpty ?? true, "corelibs drops it", sourceLocation: sourceLocation)
        } else {
            #expect(
                response.data.map { !$0.isEmpty } == true, "The \(status)'s own body",
                sourceLocation: sourceLocation)
        }
    }

    /// A session with a cache that follows no redirect (a fetch with `redirect: "manual"`).
    private func refusingSession(cache: HTTPCache = HTTPCache()) -> Session {
        Session {
            $0.cache = cache
            $0.redirectPolicy = .refuse
        }
    }

    /// The fields of httpwg cache-tests' `fresh` and `stale` templates: an `Expires` 100,000 s
    /// ahead (or 5,000 s past) and a `Last-Modified` now (or 100,000 s ago).
    private static func freshness(fresh: Bool) -> [(String, String)] {
        let now = Date()
        let lastModified = now.addingTimeInterval(fresh ? 0 : -100_000)
        return [
            ("expires", fresh ? "100000" : "-5000"),
            ("field", "Last-Modified: " + format(lastModified, "EEE, dd MMM yyyy HH:mm:ss 'GMT'")),
        ]
    }

    @Test(
        "status-3xx-fresh: a session that refuses redirects stores a fresh redirect and serves it (httpwg cache-tests)",
        arguments: [301, 302, 303, 307, 308])
    func refusedRedirectFresh(status: Int) async throws {
        let (id, url) = try await resource([("status", String(status))] + Self.freshness(fresh: true))
        let session = refusingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.response?.statusCode == status && first.source == .network)
        #expect(second.response?.statusCode == status)
        #expect(second.source == .cache)
        #expect(second.data == first.data)
        #expect(try await hits(id) == 1)
        Self.expectRedirectBody(first, status: status)
    }

    @Test(
        "status-3xx-stale: a session that refuses redirects never serves a stale redirect (httpwg cache-tests)",
        arguments: [301, 302, 303, 307, 308])
    func refusedRedirectStale(status: Int) async throws {
        let (id, url) = try await resource([("status", String(status))] + Self.freshness(fresh: false))
        let session = refusingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.response?.statusCode == status)
        #expect(second.response?.statusCode == status)
        #expect(second.source == .network)
        #expect(try await hits(id) == 2)
    }

    @Test(
        "A refused redirect with a Location is a response like any other: stored, served, Location and body intact",
        arguments: [301, 302, 307, 308])
    func refusedRedirectWithLocation(status: Int) async throws {
        let target = try await resource([("cc", "max-age=60")])
        let (id, url) = try await resource([
            ("status", String(status)), ("cc", "max-age=60"), ("field", "Location: \(target.url)"),
        ])
        let session = refusingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.response?.statusCode == status && second.response?.statusCode == status)
        #expect(second.source == .cache)
        #expect(second.response?.value(forHTTPHeaderField: "Location") == target.url)
        #expect(second.data == first.data)
        Self.expectRedirectBody(first, status: status)
        #expect(try await hits(id) == 1)
        #expect(try await hits(target.id) == 0, "Never followed")
    }

    @Test(
        "Each hop under its own URL: a stored 301 (heuristically fresh) and 308 are followed from the cache to the stored target",
        arguments: [301, 308])
    func storedRedirectFollowed(status: Int) async throws {
        let target = try await resource([("cc", "max-age=60")])
        // Fresh by heuristic only: a validator, and a Last-Modified long ago (RFC 9111 §4.2.2).
        let (id, url) = try await resource([
            ("status", String(status)), ("lastModified", "1"), ("field", "Location: \(target.url)"),
        ])
        let cache = HTTPCache()
        let session = Session { $0.cache = cache }
        let first = await fetch(ConformanceForm(url: url), session: session)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.response?.statusCode == 200 && first.source == .network)
        #expect(second.response?.statusCode == 200 && second.source == .cache)
        #expect(second.response?.url?.absoluteString == target.url, "The target's response")
        #expect(second.data == first.data)
        #expect(try await hits(id) == 1)
        #expect(try await hits(target.id) == 1)
        // The redirect is stored under its own URL: a session that refuses redirects, on the same
        // cache, gets it as its response, without asking the server.
        let refused = await fetch(ConformanceForm(url: url), session: refusingSession(cache: cache))
        #expect(refused.response?.statusCode == status && refused.source == .cache)
        #expect(try await hits(id) == 1)
    }

    @Test("A redirect with no freshness is asked again, and the stored target answers the hop it leads to")
    func unstoredRedirectLeadsToStoredTarget() async throws {
        let target = try await resource([("cc", "max-age=60")])
        let (id, url) = try await resource([("status", "302"), ("field", "Location: \(target.url)")])
        let session = cachingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let second = await fetch(ConformanceForm(url: url), session: session)
        #expect(first.source == .network && second.source == .cache)
        #expect(second.data == first.data)
        #expect(try await hits(id) == 2, "A 302 without freshness is not reused")
        #expect(try await hits(target.id) == 1)
    }

    @Test("A content coding the client does not know is stored and served as it came (RFC 9111 §3)")
    func unknownContentEncoding() async throws {
        let (first, second, hits) = try await twice([
            ("cc", "max-age=60"), ("field", "Content-Encoding: x-formwork-unknown"),
        ])
        guard !TransportUnderTest.isCorelibsURLSession else {
            // libcurl refuses a coding it cannot decode (CURLE_BAD_CONTENT_ENCODING): the exchange
            // fails before Formwork sees a response, so there is nothing to store.
            #expect(first.error?.kind == .transport)
            return
        }
        #expect(first.response?.statusCode == 200)
        #expect(second.source == .cache)
        #expect(second.response?.value(forHTTPHeaderField: "Content-Encoding") == "x-formwork-unknown")
        #expect(second.data == first.data)
        #expect(hits == 1)
    }

    @Test("Expires stores an error status too")
    func errorWithExpires() async throws {
        let (_, second, hits) = try await twice([("expires", "60"), ("status", "500")])
        #expect(second.source == .cache && second.response?.statusCode == 500 && hits == 1)
    }

    @Test("A retry of a stored 503 asks the server: the retry policy never loops on the stored answer")
    func retryOfStoredError() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("status", "503")])
        let session = cachingSession()
        let form = ConformanceForm(url: url)
        _ = await fetch(form, session: session)
        let retried = await withCheckedContinuation { continuation in
            client.request(form, session: session).validate()
                .retry(RetryPolicy(retryLimit: 1, baseDelay: 0.01))
                .responseData { continuation.resume(returning: $0) }
        }
        #expect(retried.error?.statusCode == 503)
        #expect(retried.source == .network)
        // The first request, then the retry; the retried attempt's first try was the stored one.
        #expect(try await hits(id) == 2)
        // Without a retry, the stored 503 answers.
        #expect(await fetch(form, session: session).source == .cache)
        #expect(try await hits(id) == 2)
    }

    @Test("The app's own If-None-Match is answered from a fresh stored response with a 304 (RFC 9111 §4.3.2)")
    func ownIfNoneMatch() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("etag", "1")])
        let session = cachingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let etag = try #require(first.response?.value(forHTTPHeaderField: "ETag"))
        let matching = await fetch(
            ConformanceForm(url: url, headers: ["If-None-Match": etag]), session: session)
        #expect(matching.response?.statusCode == 304)
        #expect(matching.source == .cache)
        #expect(matching.response?.value(forHTTPHeaderField: "ETag") == etag)
        #expect(matching.data?.isEmpty ?? true)
        let other = await fetch(
            ConformanceForm(url: url, headers: ["If-None-Match": "\"other\""]), session: session)
        #expect(other.response?.statusCode == 200 && other.source == .cache && other.data == first.data)
        #expect(try await hits(id) == 1)
    }

    @Test("The app's own If-Modified-Since is answered from a fresh stored response with a 304")
    func ownIfModifiedSince() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("lastModified", "1")])
        let session = cachingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let lastModified = try #require(first.response?.value(forHTTPHeaderField: "Last-Modified"))
        let since = await fetch(
            ConformanceForm(url: url, headers: ["If-Modified-Since": lastModified]), session: session)
        #expect(since.response?.statusCode == 304 && since.source == .cache)
        let before = await fetch(
            ConformanceForm(url: url, headers: ["If-Modified-Since": "Sat, 05 Nov 1994 08:49:37 GMT"]),
            session: session)
        #expect(before.response?.statusCode == 200 && before.source == .cache)
        #expect(try await hits(id) == 1)
    }

    @Test("A Range is answered from a stored complete response with a 206 (RFC 9110 §14)")
    func rangeFromComplete() async throws {
        let (id, url) = try await resource([("cc", "max-age=60")])
        let session = cachingSession()
        let first = await fetch(ConformanceForm(url: url), session: session)
        let body = try #require(first.data)
        let part = await fetch(ConformanceForm(url: url, headers: ["Range": "bytes=0-4"]), session: session)
        #expect(part.response?.statusCode == 206 && part.source == .cache)
        #expect(part.data == body.prefix(5))
        #expect(part.response?.value(forHTTPHeaderField: "Content-Range") == "bytes 0-4/\(body.count)")
        let suffix = await fetch(ConformanceForm(url: url, headers: ["Range": "bytes=-3"]), session: session)
        #expect(suffix.response?.statusCode == 206 && suffix.data == body.suffix(3))
        #expect(try await hits(id) == 1)
    }

    @Test("A stored 206 answers the same range again; another range and a full request reach the server")
    func partialReuse() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("range", "1")])
        let session = cachingSession()
        let suffix = ConformanceForm(url: url, headers: ["Range": "bytes=-5"])
        let first = await fetch(suffix, session: session)
        #expect(first.response?.statusCode == 206 && first.source == .network)
        let again = await fetch(suffix, session: session)
        #expect(again.response?.statusCode == 206 && again.source == .cache)
        #expect(again.data == first.data)
        #expect(try await hits(id) == 1)
        let head = await fetch(ConformanceForm(url: url, headers: ["Range": "bytes=0-4"]), session: session)
        #expect(head.source == .network)
        let whole = await fetch(ConformanceForm(url: url), session: session)
        #expect(whole.response?.statusCode == 200 && whole.source == .network)
        #expect(try await hits(id) == 3)
    }

    @Test(
        "only-if-cached: a fresh stored response answers; nothing usable gives the cache's 504, never the server"
    )
    func onlyIfCached() async throws {
        let (id, url) = try await resource([("cc", "max-age=60")])
        let session = cachingSession()
        let onlyCached = ConformanceForm(url: url, headers: ["Cache-Control": "only-if-cached"])
        let miss = await fetch(onlyCached, session: session)
        #expect(miss.response?.statusCode == 504)
        #expect(try await hits(id) == 0)
        _ = await fetch(ConformanceForm(url: url), session: session)
        let hit = await fetch(onlyCached, session: session)
        #expect(hit.response?.statusCode == 200 && hit.source == .cache)
        #expect(try await hits(id) == 1)
    }

    @Test("no-cache=\"Field\": served from the cache without that field (RFC 9111 §5.2.2.4)")
    func qualifiedNoCache() async throws {
        let (_, second, hits) = try await twice([
            ("cc", "max-age=60, no-cache=\"X-Secret\""), ("field", "X-Secret: 1"), ("field", "X-Kept: 1"),
        ])
        #expect(second.source == .cache && hits == 1)
        #expect(second.response?.value(forHTTPHeaderField: "X-Secret") == nil)
        #expect(second.response?.value(forHTTPHeaderField: "X-Kept") == "1")
    }

    @Test("must-understand with no-store: a 200 is stored by a cache that understands it (RFC 9111 §5.2.2.3)")
    func mustUnderstand() async throws {
        let (_, second, hits) = try await twice([("cc", "must-understand, no-store, max-age=60")])
        #expect(second.source == .cache && hits == 1)
    }

    @Test("HEAD is answered from a fresh stored GET response: its fields, no body, no request")
    func headFromStoredGet() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("etag", "1")])
        let session = cachingSession()
        let get = await fetch(ConformanceForm(url: url), session: session)
        let head = await fetch(ConformanceForm(url: url, method: .head), session: session)
        #expect(head.source == .cache && head.response?.statusCode == 200)
        #expect(
            head.response?.value(forHTTPHeaderField: "ETag")
                == get.response?.value(forHTTPHeaderField: "ETag"))
        #expect(head.data?.isEmpty ?? true)
        #expect(try await hits(id) == 1)
    }

    @Test("A HEAD response freshens the stored GET response it matches (RFC 9111 §4.3.5)")
    func headFreshens() async throws {
        let (id, url) = try await resource([("cc", "max-age=0"), ("headCC", "max-age=3600"), ("etag", "1")])
        let session = cachingSession()
        _ = await fetch(ConformanceForm(url: url), session: session)
        let head = await fetch(ConformanceForm(url: url, method: .head), session: session)
        #expect(head.source == .network)
        let get = await fetch(ConformanceForm(url: url), session: session)
        #expect(get.source == .cache)
        #expect(try await hits(id) == 2)
    }

    @Test("A HEAD response with another ETag drops the stored GET response")
    func headMismatchDrops() async throws {
        let (id, url) = try await resource([("cc", "max-age=0"), ("etag", "1")])
        let session = cachingSession()
        _ = await fetch(ConformanceForm(url: url), session: session)
        // The resource changes behind the cache's back.
        let change = ConformanceForm(url: try await DemoServer.url("/cache/resource?id=\(id)"), method: .post)
        _ = try await client.request(change, session: plain).data()
        _ = await fetch(ConformanceForm(url: url, method: .head), session: session)
        // Any staleness would do: only a response that is no longer stored goes to the server.
        let stale = await fetch(
            ConformanceForm(url: url, headers: ["Cache-Control": "max-stale"]), session: session)
        #expect(stale.source == .network)
        #expect(try await hits(id) == 3)
    }

    @Test("Vary: a language tag in another case selects the same stored response (RFC 9111 §4.1)")
    func varyCaseInsensitive() async throws {
        let (id, url) = try await resource([("cc", "max-age=60"), ("vary", "Accept-Language")])
        let session = cachingSession()
        _ = await fetch(ConformanceForm(url: url, headers: ["Accept-Language": "en-US"]), session: session)
        let other = await fetch(
            ConformanceForm(url: url, headers: ["Accept-Language": "EN-us"]), session: session)
        #expect(other.source == .cache)
        #expect(try await hits(id) == 1)
    }
}
