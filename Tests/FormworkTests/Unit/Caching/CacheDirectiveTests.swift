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
}
