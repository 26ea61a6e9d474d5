import Foundation
import Testing

@testable import Formwork

@Suite("HTTP dates")
struct HTTPDateTests {
    /// 1994-11-06 08:49:37 GMT, RFC 9110's example.
    let example = Date(timeIntervalSince1970: 784_111_777)
    /// A time in 2026, for the two-digit year rule.
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test(
        "The three forms of RFC 9110 §5.6.7 read the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            " Sun, 06 Nov 1994 08:49:37 GMT\t",
        ])
    func forms(text: String) {
        #expect(HTTPDate.parse(text, now: now) == example)
    }

    @Test(
        "Anything else is not a date",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun 06 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 08.49.37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT", "sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT x", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT",
            "Sunday, 06 Nov 94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994", "Sun Nov 06 08:49:37 94", "Sun Nov  6 08:49:37 1994 GMT",
            "", "0", "-1", "2024-01-01", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49:37 +0000",
        ])
    func rejected(text: String) {
        #expect(HTTPDate.parse(text, now: now) == nil)
    }

    @Test("An RFC 850 year more than 50 years ahead is the century before")
    func twoDigitYears() {
        #expect(HTTPDate.rfc850Year(76, now: now) == 2076)
        #expect(HTTPDate.rfc850Year(77, now: now) == 1977)
        #expect(HTTPDate.rfc850Year(26, now: now) == 2026)
        #expect(HTTPDate.rfc850Year(0, now: now) == 2000)
        let date = HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT", now: now)
        #expect(date == Date(timeIntervalSince1970: 3_155_760_000))
    }

    @Test(
        "Two-digit days, leap days and leap seconds; IMF-fixdate round-trips",
        arguments: [
            0, 784_111_777, 951_782_400, 1_704_067_200, 4_102_444_799, -86_400, -2_208_988_800,
        ] as [TimeInterval])
    func roundTrip(seconds: TimeInterval) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(HTTPDate.parse(HTTPDate.string(from: date)) == date)
    }

    @Test("Known strings: weekdays, a leap day, asctime with a two-digit day, a leap second")
    func knownStrings() {
        #expect(
            HTTPDate.string(from: Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT"
        )
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(
            HTTPDate.string(from: Date(timeIntervalSince1970: -86_400)) == "Wed, 31 Dec 1969 00:00:00 GMT")
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == example + 10 * 86_400)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:60 GMT") == example + 23)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Thu, 29 Feb 2001 00:00:00 GMT") == nil)
    }

    @Test("Every reader of HTTP dates takes the three forms and refuses the rest")
    func readers() {
        let later = example + 30
        let forms = [
            "Sun, 06 Nov 1994 08:50:07 GMT", "Sunday, 06-Nov-94 08:50:07 GMT", "Sun Nov  6 08:50:07 1994",
        ]
        for form in forms {
            #expect(RetryPolicy.retryAfter(form, now: example) == 30, "Retry-After: \(form)")
            let lifetime = CacheFreshness.lifetime(
                statusCode: 200, headers: ["Last-Modified": form], responseTime: later + 1000)
            #expect(lifetime == 100, "Last-Modified: \(form)")
        }
        let malformed = "Sun, 06 Nov 1994 08:50:07 UTC"
        #expect(RetryPolicy.retryAfter(malformed, now: example) == nil)
        #expect(
            CacheFreshness.lifetime(
                statusCode: 200, headers: ["Last-Modified": malformed], responseTime: later) == 0)
        #expect(ResumeData.Validator.forIfRange(from: ["Last-Modified": malformed]) == nil)
        #expect(ResumeData.Validator.forIfRange(from: ["Last-Modified": forms[1]]) == .lastModified(forms[1]))
    }
}
