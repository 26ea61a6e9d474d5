import Foundation
import Testing

@testable import Formwork

@Suite("Cache decisions")
struct CacheDecisionTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let url = "http://127.0.0.1/items"

    /// An entry received `age` seconds ago with these headers.
    private func entry(_ headers: HTTPHeaders, age: TimeInterval = 0, status: Int = 200) -> CacheEntry {
        CacheEntry(
            url: url, statusCode: status, headers: headers, body: Data("stored".utf8),
            requestTime: now - age, responseTime: now - age, vary: [])
    }

    private func lookup(_ entry: CacheEntry?, request: HTTPHeaders = [:], policy: CachePolicy = .useProtocol)
        -> CacheDecision.Lookup
    {
        CacheDecision.lookup(entry, request: request, policy: policy, now: now)
    }

    @Test("Nothing stored is a miss; fresh is served; stale with a validator is revalidated")
    func basics() {
        #expect(lookup(nil) == .miss)
        let fresh = entry(["Cache-Control": "max-age=60"], age: 10)
        #expect(lookup(fresh) == .fresh(fresh))
        let stale = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Last-Modified": "x"], age: 61)
        #expect(
            lookup(stale)
                == .revalidate(
                    stale, conditionalFields: ["If-None-Match": "\"v1\"", "If-Modified-Since": "x"])
        )
        let noValidator = entry(["Cache-Control": "max-age=60"], age: 61)
        #expect(lookup(noValidator) == .revalidate(noValidator, conditionalFields: [:]))
    }

    @Test("no-cache in the response always revalidates; must-revalidate forbids stale serving")
    func responseDirectives() {
        let noCache = entry(["Cache-Control": "no-cache, max-age=600", "ETag": "\"a\""], age: 1)
        #expect(lookup(noCache) == .revalidate(noCache, conditionalFields: ["If-None-Match": "\"a\""]))
        let strict = entry(
            ["Cache-Control": "max-age=10, must-revalidate, stale-while-revalidate=100"], age: 20)
        #expect(lookup(strict) == .revalidate(strict, conditionalFields: [:]))
        #expect(
            lookup(strict, request: ["Cache-Control": "max-stale"])
                == .revalidate(strict, conditionalFields: [:]))
    }

    @Test("A request's no-cache or max-age asks for revalidation, unless the entry is immutable and fresh")
    func requestDirectives() {
        let fresh = entry(["Cache-Control": "max-age=600", "ETag": "\"a\""], age: 100)
        let revalidate = CacheDecision.Lookup.revalidate(fresh, conditionalFields: ["If-None-Match": "\"a\""])
        #expect(lookup(fresh, request: ["Cache-Control": "no-cache"]) == revalidate)
        #expect(lookup(fresh, request: ["Pragma": "no-cache"]) == revalidate)
        #expect(lookup(fresh, request: ["Cache-Control": "max-age=50"]) == revalidate)
        #expect(lookup(fresh, request: ["Cache-Control": "max-age=500"]) == .fresh(fresh))
        #expect(lookup(fresh, request: ["Cache-Control": "min-fresh=600"]) == revalidate)
        let immutable = entry(["Cache-Control": "max-age=600, immutable"], age: 100)
        #expect(lookup(immutable, request: ["Cache-Control": "no-cache"]) == .fresh(immutable))
    }

    @Test("stale-while-revalidate serves within its window only; max-stale accepts staleness")
    func staleWindows() {
        let inWindow = entry(["Cache-Control": "max-age=10, stale-while-revalidate=30"], age: 35)
        #expect(lookup(inWindow) == .staleWhileRevalidate(inWindow))
        let pastWindow = entry(["Cache-Control": "max-age=10, stale-while-revalidate=30"], age: 41)
        #expect(lookup(pastWindow) == .revalidate(pastWindow, conditionalFields: [:]))
        let stale = entry(["Cache-Control": "max-age=10"], age: 15)
        #expect(lookup(stale, request: ["Cache-Control": "max-stale=10"]) == .fresh(stale))
        #expect(
            lookup(stale, request: ["Cache-Control": "max-stale=1"])
                == .revalidate(stale, conditionalFields: [:]))
    }

    @Test("Policies: reload ignores the entry; the cache-first policies take any entry")
    func policies() {
        let stale = entry(["Cache-Control": "max-age=1, must-revalidate"], age: 1000)
        #expect(lookup(stale, policy: .reloadIgnoringCache) == .miss)
        for policy in [CachePolicy.returnCacheElseLoad, .cacheOnly, .cacheThenNetwork] {
            #expect(lookup(stale, policy: policy) == .fresh(stale))
            #expect(lookup(nil, policy: policy) == .miss)
        }
    }

    // MARK: Storing

    private func canStore(
        _ headers: HTTPHeaders, status: Int = 200, method: String = "GET", request: HTTPHeaders = [:],
        credentials: Bool = false
    ) -> Bool {
        CacheStorability.canStore(
            method: method, requestHeaders: request, hasCredentials: credentials, statusCode: status,
            responseHeaders: headers)
    }

    @Test("What is storable: GET, a final status, no no-store, some freshness or validator, not Vary: *")
    func storable() {
        #expect(canStore(["Cache-Control": "max-age=60"]))
        #expect(canStore(["Cache-Control": "private, max-age=60"]))
        #expect(canStore(["ETag": "\"x\""]))
        #expect(canStore(["Expires": "garbage"]))
        #expect(canStore(["Cache-Control": "max-age=60"], status: 404))
        #expect(!canStore([:]))
        #expect(!canStore(["Cache-Control": "no-store, max-age=60"]))
        #expect(!canStore(["Cache-Control": "max-age=60"], request: ["Cache-Control": "no-store"]))
        #expect(!canStore(["Cache-Control": "max-age=60"], method: "POST"))
        #expect(canStore(["Cache-Control": "max-age=60"], status: 500))
        #expect(!canStore(["ETag": "\"x\""], status: 500))
        #expect(!canStore(["Cache-Control": "max-age=60"], status: 206))
        #expect(!canStore(["Cache-Control": "max-age=60", "Vary": "Accept, *"]))
    }

    @Test("With credentials (RFC 9111 §3.5): only public, s-maxage or must-revalidate responses are stored")
    func credentials() {
        #expect(!canStore(["Cache-Control": "max-age=60"], credentials: true))
        #expect(!canStore(["Cache-Control": "private, max-age=60"], credentials: true))
        #expect(canStore(["Cache-Control": "public, max-age=60"], credentials: true))
        #expect(canStore(["Cache-Control": "s-maxage=60, max-age=60"], credentials: true))
        #expect(canStore(["Cache-Control": "must-revalidate", "ETag": "\"e\""], credentials: true))
    }

    @Test("Credential keys are hashes, differ per credential, and cover the app's own credential names")
    func credentialKeys() {
        let alice = CacheStorability.credentialKey(["Authorization": "Bearer alice"], extraNames: [])
        let bob = CacheStorability.credentialKey(["authorization": "Bearer bob"], extraNames: [])
        #expect(alice != nil && bob != nil && alice != bob)
        #expect(alice?.contains("alice") == false)
        #expect(CacheStorability.credentialKey(["Accept": "x"], extraNames: []) == nil)
        #expect(CacheStorability.credentialKey(["X-Api-Key": "k"], extraNames: ["x-api-KEY"]) != nil)
    }

    @Test("Hop-by-hop fields, those Connection names and the proxy fields are not stored; Set-Cookie is")
    func storedFields() {
        let stored = CacheStorability.storedFields([
            "Connection": "close, X-Hop", "X-Hop": "1", "Keep-Alive": "5", "Set-Cookie": "s=1",
            "Proxy-Authentication-Info": "nextnonce=\"a\"", "Proxy-Authenticate": "Basic", "ETag": "\"e\"",
        ])
        #expect(stored == ["Set-Cookie": "s=1", "ETag": "\"e\""])
    }

    @Test("Vary: stored values select the response; whitespace is normalised; credentials are hashed")
    func vary() {
        let names = CacheVary.names(in: ["Vary": "Accept-Language, accept ,Authorization"])
        #expect(names == ["accept", "accept-language", "authorization"])
        let values = CacheVary.values(
            for: names ?? [], request: ["Accept": "a/b, c/d", "Authorization": "Bearer secret"])
        #expect(values.first { $0.name == "authorization" }?.value?.contains("secret") == false)
        #expect(values.first { $0.name == "accept-language" }?.value == nil)
        #expect(CacheVary.matches(values, request: ["Accept": "a/b,c/d", "Authorization": "Bearer secret"]))
        #expect(!CacheVary.matches(values, request: ["Accept": "a/b", "Authorization": "Bearer secret"]))
        #expect(!CacheVary.matches(values, request: ["Accept": "a/b,c/d", "Authorization": "Bearer other"]))
        #expect(
            !CacheVary.matches(
                values,
                request: ["Accept": "a/b,c/d", "Authorization": "Bearer secret", "Accept-Language": "fr"]))
        #expect(CacheVary.names(in: ["Vary": "*"]) == nil)
    }

    // MARK: Settling

    private func exchange(
        method: String = "GET", stored: CacheEntry? = nil, status: Int?, headers: HTTPHeaders = [:],
        failed: Bool = false, request: HTTPHeaders = [:]
    ) -> CacheDecision.Exchange {
        CacheDecision.Exchange(
            method: method, url: url, requestHeaders: request, hasCredentials: false, stored: stored,
            requestTime: now - 1, statusCode: status, responseHeaders: headers, body: Data("new".utf8),
            transportFailed: failed)
    }

    @Test("A storable 200 is stored with its request's Vary values; an unstorable one passes")
    func settleStore() {
        let settled = CacheDecision.settle(
            exchange(
                status: 200, headers: ["Cache-Control": "max-age=5", "Vary": "Accept"],
                request: ["Accept": "x"]),
            now: now)
        guard case .store(let entry) = settled else {
            Issue.record("expected .store, got \(settled)")
            return
        }
        #expect(entry.vary == [CacheVary.Value(name: "accept", value: "x")])
        #expect(entry.requestTime == now - 1 && entry.responseTime == now)
        #expect(
            CacheDecision.settle(exchange(status: 200, headers: ["Cache-Control": "no-store"]), now: now)
                == .pass)
    }

    @Test(
        "A 304 merges its fields into the stored response, keeping Content-Length; a mismatched ETag passes")
    func settle304() {
        let stored = entry(
            ["ETag": "\"v1\"", "Content-Length": "6", "Cache-Control": "max-age=1", "X-Old": "1"], age: 100)
        let settled = CacheDecision.settle(
            exchange(
                stored: stored, status: 304,
                headers: [
                    "ETag": "\"v1\"", "Content-Length": "0", "Cache-Control": "max-age=60",
                    "Connection": "close",
                ]),
            now: now)
        guard case .revalidated(let merged) = settled else {
            Issue.record("expected .revalidated, got \(settled)")
            return
        }
        #expect(merged.headers["Cache-Control"] == "max-age=60")
        #expect(merged.headers["Content-Length"] == "6")
        #expect(merged.headers["X-Old"] == "1")
        #expect(merged.headers["Connection"] == nil)
        #expect(merged.body == stored.body)
        #expect(merged.responseTime == now)
        let mismatch = exchange(stored: stored, status: 304, headers: ["ETag": "\"v2\""])
        #expect(CacheDecision.settle(mismatch, now: now) == .pass)
    }

    @Test("stale-if-error serves the stored entry on a transport error or 5xx within its window only")
    func staleIfError() {
        let stored = entry(["Cache-Control": "max-age=10, stale-if-error=60"], age: 30)
        #expect(
            CacheDecision.settle(exchange(stored: stored, status: nil, failed: true), now: now)
                == .serveStale(stored))
        #expect(CacheDecision.settle(exchange(stored: stored, status: 503), now: now) == .serveStale(stored))
        let old = entry(["Cache-Control": "max-age=10, stale-if-error=60"], age: 100)
        #expect(CacheDecision.settle(exchange(stored: old, status: 500), now: now) == .pass)
        let plain = entry(["Cache-Control": "max-age=10"], age: 30)
        #expect(CacheDecision.settle(exchange(stored: plain, status: 500), now: now) == .pass)
        let fromRequest = exchange(
            stored: plain, status: 500, request: ["Cache-Control": "stale-if-error=100"])
        #expect(CacheDecision.settle(fromRequest, now: now) == .serveStale(plain))
        let strict = entry(["Cache-Control": "max-age=10, stale-if-error=60, must-revalidate"], age: 30)
        #expect(CacheDecision.settle(exchange(stored: strict, status: 500), now: now) == .pass)
    }

    @Test("A successful unsafe method invalidates its URL and same-origin Location / Content-Location")
    func invalidation() {
        let settled = CacheDecision.settle(
            exchange(
                method: "POST", status: 201,
                headers: ["Location": "/items/7", "Content-Location": "http://other.example/items/7"]),
            now: now)
        #expect(settled == .invalidate([url, "http://127.0.0.1/items/7"]))
        #expect(CacheDecision.settle(exchange(method: "DELETE", status: 500), now: now) == .pass)
        #expect(CacheDecision.settle(exchange(method: "PUT", status: nil, failed: true), now: now) == .pass)
    }
}
