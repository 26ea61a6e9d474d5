import Foundation
import Testing

@testable import Formwork

@Suite("Cache freshness and age")
struct CacheFreshnessTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func lifetime(_ headers: HTTPHeaders, status: Int = 200) -> TimeInterval {
        CacheFreshness.lifetime(statusCode: status, headers: headers, responseTime: now)
    }

    @Test("max-age wins over Expires; s-maxage is ignored by a private cache")
    func maxAge() {
        #expect(lifetime(["Cache-Control": "max-age=60", "Expires": HTTPDate.string(from: now + 999)]) == 60)
        #expect(lifetime(["Cache-Control": "s-maxage=600"]) == 0)
        #expect(lifetime(["Cache-Control": "s-maxage=600, max-age=5"]) == 5)
    }

    @Test("Expires counts from Date; a malformed Expires or max-age means already stale")
    func expires() {
        let headers: HTTPHeaders = [
            "Date": HTTPDate.string(from: now - 10), "Expires": HTTPDate.string(from: now + 50),
        ]
        #expect(lifetime(headers) == 60)
        #expect(lifetime(["Expires": "0"]) == 0)
        #expect(lifetime(["Cache-Control": "max-age=soon", "Expires": HTTPDate.string(from: now + 50)]) == 0)
        // Without Date, the response time stands in for it.
        #expect(lifetime(["Expires": HTTPDate.string(from: now + 30)]) == 30)
    }

    @Test("Heuristic freshness: 10 % of the time since Last-Modified, only where RFC 9111 §4.2.2 allows it")
    func heuristic() {
        let lastModified = HTTPDate.string(from: now - 1000)
        #expect(lifetime(["Last-Modified": lastModified]) == 100)
        #expect(lifetime(["Last-Modified": HTTPDate.string(from: now - 10_000_000)]) == 86_400)
        #expect(lifetime(["Last-Modified": lastModified], status: 404) == 100)
        #expect(lifetime(["Last-Modified": lastModified], status: 500) == 0)
        #expect(lifetime(["Last-Modified": lastModified, "Cache-Control": "public"], status: 500) == 100)
        #expect(lifetime(["Last-Modified": lastModified, "Cache-Control": "no-cache"]) == 0)
        #expect(lifetime([:]) == 0)
    }

    @Test("Current age: Age counts, plus the round trip and the time stored (RFC 9111 §4.2.3)")
    func currentAge() {
        let requestTime = now - 2
        let responseTime = now
        let age = { (headers: HTTPHeaders, at: Date) in
            CacheFreshness.currentAge(
                headers: headers, requestTime: requestTime, responseTime: responseTime, now: at)
        }
        #expect(age(["Age": "30"], now) == 32)
        #expect(age(["Age": "30"], now + 10) == 42)
        // A Date 100 s behind the response time makes the apparent age win.
        #expect(age(["Date": HTTPDate.string(from: now - 100)], now) == 100)
        #expect(age(["Age": "junk"], now) == 2)
    }

    @Test(
        "Age as a list (one line, or lines joined) counts its first member; an invalid first member is ignored",
        arguments: [("7200, 0", 7200.0), ("7200,0", 7200), (" 30 , 7200", 30), ("x, 7200", 0), ("", 0)])
    func ageList(value: String, expected: TimeInterval) {
        let age = CacheFreshness.currentAge(
            headers: ["Age": value], requestTime: now, responseTime: now, now: now)
        #expect(age == expected)
        #expect(CacheFreshness.ageValue(value) == (expected > 0 ? Int(expected) : nil))
    }

    @Test(
        "A malformed Expires means already stale (RFC 9111 §5.3)",
        arguments: [
            "Fri, 01 Jan 2100 00:00:00 UTC", "Fri 01 Jan 2100 00:00:00 GMT", "Fri,  01 Jan 2100 00:00:00 GMT",
            "Fri, 01-Jan-2100 00:00:00 GMT", "Fri, 01 Jan 2100 00.00.00 GMT", "Fri, 01 Jan 2100 0:00:00 GMT",
        ])
    func malformedExpires(value: String) {
        #expect(lifetime(["Expires": value]) == 0)
        #expect(lifetime(["Expires": "Fri, 01 Jan 2100 00:00:00 GMT"]) > 0)
    }
}
