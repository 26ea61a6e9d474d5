import Foundation
import Testing

@testable import Formwork

@Suite("Cache storage by status")
struct CacheStatusStorageTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func canStore(_ status: Int, _ headers: HTTPHeaders, method: String = "GET") -> Bool {
        CacheStorability.canStore(
            method: method, requestHeaders: [:], hasCredentials: false, statusCode: status,
            responseHeaders: headers)
    }

    @Test(
        "Any final status with an explicit expiration time is stored (RFC 9111 §3)",
        arguments: [200, 203, 299, 302, 303, 307, 400, 404, 499, 500, 502, 503, 504, 599])
    func explicitFreshness(status: Int) {
        #expect(canStore(status, ["Cache-Control": "max-age=60"]))
        #expect(canStore(status, ["Expires": HTTPDate.string(from: now + 60)]))
        #expect(!canStore(status, ["Cache-Control": "max-age=60"], method: "POST"))
        #expect(!canStore(status, ["Cache-Control": "max-age=60, no-store"]))
    }

    @Test(
        "Without one, only heuristically cacheable statuses are stored for their validator",
        arguments: [(200, true), (404, true), (301, true), (302, false), (503, false), (500, false)])
    func validatorOnly(status: Int, stored: Bool) {
        #expect(canStore(status, ["ETag": "\"a\""]) == stored)
        #expect(canStore(status, ["ETag": "\"a\"", "Cache-Control": "private"]))
        #expect(!canStore(status, [:]))
    }

    @Test("304 and interim statuses are never stored; 206 only through CachePartial")
    func neverStored() {
        #expect(!canStore(304, ["Cache-Control": "max-age=60"]))
        #expect(!canStore(206, ["Cache-Control": "max-age=60"]))
        #expect(!canStore(101, ["Cache-Control": "max-age=60"]))
    }

    @Test("A 5xx with max-age is stored when no stale response replaces it")
    func serverErrorsSettle() {
        func exchange(stored: CacheEntry?) -> CacheDecision.Exchange {
            CacheDecision.Exchange(
                method: "GET", url: "http://127.0.0.1/a", requestHeaders: [:], hasCredentials: false,
                stored: stored, requestTime: now, statusCode: 503,
                responseHeaders: ["Cache-Control": "max-age=30"], body: Data(), transportFailed: false)
        }
        guard case .store(let entry) = CacheDecision.settle(exchange(stored: nil), now: now) else {
            Issue.record("a 503 with max-age was not stored")
            return
        }
        #expect(entry.statusCode == 503)
        let stale = CacheEntry(
            url: "http://127.0.0.1/a", statusCode: 200,
            headers: ["Cache-Control": "max-age=1, stale-if-error=60"],
            body: Data("ok".utf8), requestTime: now - 10, responseTime: now - 10, vary: [])
        #expect(CacheDecision.settle(exchange(stored: stale), now: now) == .serveStale(stale))
    }
}
