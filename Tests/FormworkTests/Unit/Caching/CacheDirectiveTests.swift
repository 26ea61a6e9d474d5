import Foundation
import Testing

@testable import Formwork

@Suite("Cache directives: must-understand, qualified no-cache, only-if-cached")
struct CacheDirectiveTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func canStore(_ status: Int, _ cacheControl: String, request: HTTPHeaders = [:]) -> Bool {
        CacheStorability.canStore(
            method: "GET", requestHeaders: request, hasCredentials: false, statusCode: status,
            responseHeaders: ["Cache-Control": cacheControl])
    }

    @Test("must-understand: an understood status is stored despite no-store; another is never stored")
    func mustUnderstand() {
        #expect(canStore(200, "must-understand, no-store, max-age=60"))
        #expect(canStore(404, "must-understand, no-store, max-age=60"))
        #expect(!canStore(299, "must-understand, no-store, max-age=60"))
        #expect(!canStore(299, "must-understand, max-age=60"))
        #expect(!canStore(200, "no-store, max-age=60"))
        #expect(!canStore(200, "must-understand, max-age=60", request: ["Cache-Control": "no-store"]))
    }

    @Test("no-cache with field names: served fresh without those fields; plain no-cache revalidates")
    func qualifiedNoCache() {
        let entry = CacheEntry(
            url: "http://127.0.0.1/a", statusCode: 200,
            headers: [
                "Cache-Control": "max-age=60, no-cache=\"X-Secret, x-other\"", "X-Secret": "1",
                "X-Other": "2",
                "X-Kept": "3",
            ],
            body: Data(), requestTime: now, responseTime: now, vary: [])
        #expect(CacheDecision.lookup(entry, request: [:], policy: .useProtocol, now: now) == .fresh(entry))
        let served = CacheAnswer.unvalidated(entry)
        #expect(served.headers["X-Secret"] == nil && served.headers["X-Other"] == nil)
        #expect(served.headers["X-Kept"] == "3")
        var plain = entry
        plain.headers["Cache-Control"] = "max-age=60, no-cache"
        #expect(CacheDecision.lookup(plain, request: [:], policy: .useProtocol, now: now) != .fresh(plain))
        #expect(CacheAnswer.unvalidated(plain) == plain)
    }

    @Test("only-if-cached with nothing usable: the cache's own 504, empty")
    func gatewayTimeout() {
        let answer = CacheAnswer.gatewayTimeout(url: "http://127.0.0.1/a", now: now)
        #expect(answer.statusCode == 504 && answer.body.isEmpty)
    }

    @Test("A HEAD 200 freshens the stored GET response when validators and length match, else drops it")
    func headFreshening() {
        let stored = CacheEntry(
            url: "http://127.0.0.1/a", statusCode: 200,
            headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\"", "Content-Length": "4"],
            body: Data("body".utf8), requestTime: now - 10, responseTime: now - 10, vary: [])
        func settle(_ head: HTTPHeaders, status: Int = 200) -> CacheDecision.Settlement {
            CacheDecision.settle(
                CacheDecision.Exchange(
                    method: "HEAD", url: stored.url, requestHeaders: [:], hasCredentials: false,
                    stored: stored,
                    requestTime: now - 1, statusCode: status, responseHeaders: head, body: Data(),
                    transportFailed: false),
                now: now)
        }
        guard
            case .store(let freshened) = settle([
                "Cache-Control": "max-age=60", "ETag": "\"v1\"", "X-New": "1",
            ])
        else {
            Issue.record("a matching HEAD did not freshen the stored response")
            return
        }
        #expect(freshened.headers["Cache-Control"] == "max-age=60" && freshened.headers["X-New"] == "1")
        #expect(freshened.body == stored.body && freshened.responseTime == now)
        #expect(settle(["ETag": "\"v2\""]) == .invalidate([stored.url]))
        #expect(settle(["ETag": "\"v1\"", "Content-Length": "5"]) == .invalidate([stored.url]))
        #expect(settle(["Cache-Control": "max-age=60"], status: 404) == .pass)
    }

    @Test("Vary: language tags and codings match without regard to case; other values do not")
    func varyCase() {
        let values = CacheVary.values(
            for: ["accept-encoding", "accept-language"],
            request: ["Accept-Language": "en-US, fr", "Accept-Encoding": "GZIP"])
        #expect(
            CacheVary.matches(values, request: ["Accept-Language": "EN-us,FR", "Accept-Encoding": "gzip"]))
        #expect(
            !CacheVary.matches(values, request: ["Accept-Language": "en-GB, fr", "Accept-Encoding": "gzip"]))
        let other = CacheVary.values(for: ["x-flavour"], request: ["X-Flavour": "Mint"])
        #expect(!CacheVary.matches(other, request: ["X-Flavour": "mint"]))
    }
}
