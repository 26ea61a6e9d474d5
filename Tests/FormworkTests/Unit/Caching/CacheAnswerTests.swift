import Foundation
import Testing

@testable import Formwork

@Suite("Cache answers: own conditions, ranges and partial responses")
struct CacheAnswerTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let url = "http://127.0.0.1/items"
    let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    private func entry(_ headers: HTTPHeaders, status: Int = 200, body: String = "0123456789") -> CacheEntry {
        CacheEntry(
            url: url, statusCode: status, headers: headers, body: Data(body.utf8), requestTime: now,
            responseTime: now, vary: [])
    }

    @Test("If-None-Match: weak comparison, * and a list; If-Modified-Since only without it")
    func conditions() {
        let stored = entry(["ETag": "W/\"v1\"", "Last-Modified": lastModified])
        #expect(CacheAnswer.conditions(stored, request: [:]) == .none)
        #expect(CacheAnswer.conditions(stored, request: ["If-None-Match": "\"v1\""]) == .notModified)
        #expect(CacheAnswer.conditions(stored, request: ["If-None-Match": "\"x\", W/\"v1\""]) == .notModified)
        #expect(CacheAnswer.conditions(stored, request: ["If-None-Match": "*"]) == .notModified)
        #expect(CacheAnswer.conditions(stored, request: ["If-None-Match": "\"v2\""]) == .modified)
        // If-None-Match wins over If-Modified-Since.
        let both: HTTPHeaders = ["If-None-Match": "\"v2\"", "If-Modified-Since": lastModified]
        #expect(CacheAnswer.conditions(stored, request: both) == .modified)
        #expect(CacheAnswer.conditions(stored, request: ["If-Modified-Since": lastModified]) == .notModified)
        let earlier = "Sat, 05 Nov 1994 08:49:37 GMT"
        #expect(CacheAnswer.conditions(stored, request: ["If-Modified-Since": earlier]) == .modified)
        #expect(CacheAnswer.conditions(stored, request: ["If-Modified-Since": "yesterday"]) == .modified)
        #expect(CacheAnswer.conditions(stored, request: ["If-Match": "\"v1\""]) == .sendOn)
        #expect(CacheAnswer.conditions(stored, request: ["If-Range": "\"v1\""]) == .sendOn)
        // Without Last-Modified, the stored Date stands in.
        let dated = entry(["Date": lastModified])
        #expect(CacheAnswer.conditions(dated, request: ["If-Modified-Since": lastModified]) == .notModified)
        #expect(CacheAnswer.conditions(entry([:]), request: ["If-None-Match": "\"v1\""]) == .modified)
        // A stored 404 is the answer whatever the conditions say.
        let missing = entry(["ETag": "\"v1\""], status: 404)
        #expect(CacheAnswer.conditions(missing, request: ["If-None-Match": "\"v1\""]) == .modified)
        #expect(CacheAnswer.conditions(missing, request: ["If-Match": "\"v1\""]) == .modified)
    }

    @Test("The cache's 304 keeps the validators and freshness fields, and no body")
    func notModified() {
        let stored = entry([
            "ETag": "\"v1\"", "Cache-Control": "max-age=60", "Content-Type": "text/plain",
            "Content-Length": "10",
            "X-Other": "1",
        ])
        let answer = CacheAnswer.notModified(stored)
        #expect(answer.statusCode == 304 && answer.body.isEmpty)
        #expect(answer.headers == ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
    }

    @Test(
        "A Range is answered from a complete response with a 206",
        arguments: [
            ("bytes=0-4", "01234", "bytes 0-4/10"), ("bytes=5-", "56789", "bytes 5-9/10"),
            ("bytes=-3", "789", "bytes 7-9/10"), ("bytes=8-20", "89", "bytes 8-9/10"),
            ("bytes=-20", "0123456789", "bytes 0-9/10"), ("Bytes=2-2", "2", "bytes 2-2/10"),
        ])
    func ranges(range: String, body: String, contentRange: String) {
        let answer = CacheAnswer.ranged(entry(["Content-Length": "10"]), request: ["Range": range])
        #expect(answer.statusCode == 206)
        #expect(answer.body == Data(body.utf8))
        #expect(answer.headers["Content-Range"] == contentRange)
        #expect(answer.headers["Content-Length"] == String(body.utf8.count))
    }

    @Test(
        "Ranges the cache does not answer give the complete response",
        arguments: [
            "bytes=10-", "bytes=0-1,3-4", "items=0-1", "bytes=5-2", "bytes=-0", "bytes=x-1", "bytes=",
        ])
    func unanswerableRanges(range: String) {
        let stored = entry([:])
        #expect(CacheAnswer.ranged(stored, request: ["Range": range]) == stored)
        let coded = entry(["Content-Encoding": "gzip"])
        #expect(CacheAnswer.ranged(coded, request: ["Range": "bytes=0-1"]) == coded)
        let notFound = entry([:], status: 404)
        #expect(CacheAnswer.ranged(notFound, request: ["Range": "bytes=0-1"]) == notFound)
    }

    @Test("A 206 for one range is stored; one of every byte is stored as the complete 200")
    func partialStorage() {
        let part = entry(
            ["Content-Range": "bytes 4-9/10", "Cache-Control": "max-age=60"], status: 206, body: "456789")
        #expect(CachePartial.storable(part, request: ["Range": "bytes=-6"]) == part)
        #expect(CachePartial.storable(part, request: [:]) == nil)
        let wrongLength = entry(["Content-Range": "bytes 4-8/10"], status: 206, body: "456789")
        #expect(CachePartial.storable(wrongLength, request: ["Range": "bytes=4-8"]) == nil)
        let unknownLength = entry(["Content-Range": "bytes 4-9/*"], status: 206, body: "456789")
        #expect(CachePartial.storable(unknownLength, request: ["Range": "bytes=4-9"]) == nil)
        let whole = entry(["Content-Range": "bytes 0-9/10", "Content-Length": "10"], status: 206)
        let complete = CachePartial.storable(whole, request: ["Range": "bytes=0-"])
        #expect(complete?.statusCode == 200)
        #expect(complete?.headers["Content-Range"] == nil)
        #expect(complete?.body == whole.body)
    }

    @Test("A stored 206 answers a Range within it, sliced, and nothing else")
    func partialAnswers() {
        let part = entry(["Content-Range": "bytes 4-9/10"], status: 206, body: "456789")
        #expect(CachePartial.answers(part, request: ["Range": "bytes=4-9"]))
        #expect(CachePartial.answers(part, request: ["Range": "bytes=-3"]))
        #expect(CachePartial.answers(part, request: ["Range": "bytes=5-"]))
        #expect(!CachePartial.answers(part, request: ["Range": "bytes=0-4"]))
        #expect(!CachePartial.answers(part, request: [:]))
        let slice = CacheAnswer.ranged(part, request: ["Range": "bytes=-3"])
        #expect(slice.statusCode == 206 && slice.body == Data("789".utf8))
        #expect(slice.headers["Content-Range"] == "bytes 7-9/10")
    }

    @Test(
        "Content-Range values",
        arguments: [
            ("bytes 0-4/10", true), ("bytes 4-9/*", true), ("bytes 5-4/10", false), ("bytes 0-10/10", false),
            ("bytes */10", false), ("items 0-4/10", false), ("bytes 0-4", false), ("bytes -1-4/10", false),
        ])
    func contentRange(value: String, valid: Bool) {
        #expect((CachePartial.ContentRange(value) != nil) == valid)
    }
}
