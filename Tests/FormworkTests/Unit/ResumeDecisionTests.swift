import Foundation
import Testing

@testable import Formwork

@Suite struct ContentRangeTests {
    @Test(arguments: [
        ("bytes 100-199/1000", ContentRange(range: 100...199, completeLength: 1000)),
        ("bytes 0-0/1", ContentRange(range: 0...0, completeLength: 1)),
        ("bytes 100-199/*", ContentRange(range: 100...199, completeLength: nil)),
        ("bytes */1000", ContentRange(range: nil, completeLength: 1000)),
        ("bytes */0", ContentRange(range: nil, completeLength: 0)),
        ("  Bytes 5-9/10 ", ContentRange(range: 5...9, completeLength: 10)),
        (
            "bytes 0-4294967295/4294967296",
            ContentRange(range: 0...4_294_967_295, completeLength: 4_294_967_296)
        ),
    ])
    func parsesValidHeaders(header: String, expected: ContentRange) {
        #expect(ContentRange(header) == expected)
    }

    @Test(arguments: [
        "", "bytes", "bytes ", "bytes */*", "bytes 1-2", "items 0-1/2", "bytes=0-1/2", "bytes 200-100/1000",
        "bytes 0-1000/1000", "bytes -1-5/10", "bytes +1-5/10", "bytes 1- 5/10", "bytes a-b/c",
        "bytes 0-1/2/3",
        "bytes 0-99999999999999999999/*", "bytes 0-1/-5", "bytes 1/10",
    ])
    func rejectsGarbage(header: String) {
        #expect(ContentRange(header) == nil)
    }
}

@Suite struct ResumeDecisionTests {
    private static let tag = ResumeData.Validator.entityTag("\"v1\"")

    private func decide(
        _ status: Int, _ contentRange: String? = nil, offset: Int64 = 100, expectedTotal: Int64? = nil,
        validator: ResumeData.Validator? = nil, extra: [String: String] = [:]
    ) -> ResumeDecision {
        var headers = HTTPHeaders(extra)
        if let contentRange {
            headers.update(name: "Content-Range", value: contentRange)
        }
        return ResumeDecision.decide(
            offset: offset, status: status, headers: headers, expectedTotal: expectedTotal,
            validator: validator)
    }

    @Test func partialContentAtTheOffsetIsAppended() {
        #expect(
            decide(206, "bytes 100-999/1000") == .append(ContentRange(range: 100...999, completeLength: 1000))
        )
        #expect(
            decide(206, "bytes 100-999/*") == .append(ContentRange(range: 100...999, completeLength: nil)))
        #expect(
            decide(206, "bytes 100-999/1000", expectedTotal: 1000)
                == .append(ContentRange(range: 100...999, completeLength: 1000)))
    }

    @Test func fullResponseRestartsWithItsBody() {
        let decision = decide(200)
        #expect(decision == .restartFromZero(.wholeFileSent))
        guard case .restartFromZero(let reason) = decision else { return }
        #expect(reason.responseBodyIsWholeFile)
        // Another validator, or none, on the 200: the file changed (or nothing shows it did not).
        #expect(
            decide(200, validator: Self.tag, extra: ["ETag": "\"v2\""]) == .restartFromZero(.wholeFileSent))
        #expect(decide(200, validator: Self.tag) == .restartFromZero(.wholeFileSent))
        #expect(
            decide(200, validator: Self.tag, extra: ["ETag": "W/\"v1\""]) == .restartFromZero(.wholeFileSent))
    }

    @Test func fullResponseWithTheSameValidatorKeepsThePartialFile() {
        // The server ignored the range (or was asked for the whole body): its first N bytes are on disk.
        #expect(decide(200, validator: Self.tag, extra: ["ETag": "\"v1\""]) == .appendAfterSkipping(100))
        #expect(
            decide(
                200, expectedTotal: 1000, validator: Self.tag,
                extra: ["ETag": "\"v1\"", "Content-Length": "1000"])
                == .appendAfterSkipping(100))
        // ... unless its length says it is another file.
        #expect(
            decide(200, validator: Self.tag, extra: ["ETag": "\"v1\"", "Content-Length": "50"])
                == .restartFromZero(.wholeFileSent))
        #expect(
            decide(
                200, expectedTotal: 1000, validator: Self.tag,
                extra: ["ETag": "\"v1\"", "Content-Length": "999"])
                == .restartFromZero(.wholeFileSent))
        let dated = ResumeData.Validator.lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(
            decide(200, validator: dated, extra: ["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"])
                == .appendAfterSkipping(100))
    }

    @Test(
        "A 206 for other bytes than asked keeps the partial file and asks for the whole body",
        arguments: ["bytes 0-999/1000", "bytes 150-999/1000", "garbage", "bytes */1000"])
    func partialContentElsewhereKeepsTheBytesAndRechecks(contentRange: String) {
        #expect(decide(206, contentRange) == .recheckWithoutRange)
    }

    @Test func partialContentWithoutContentRangeKeepsTheBytesAndRechecks() {
        #expect(decide(206) == .recheckWithoutRange)
    }

    @Test func partialContentOfAFileWithAnotherSizeRestarts() {
        let range = ContentRange(range: 100...1999, completeLength: 2000)
        #expect(
            decide(206, "bytes 100-1999/2000", expectedTotal: 1000) == .restartFromZero(.lengthChanged(range))
        )
    }

    @Test func unsatisfiableRangeProvesTheFileComplete() {
        // The length equals the bytes kept, and nothing contradicts the validator.
        #expect(decide(416, "bytes */100") == .alreadyComplete(totalBytes: 100))
        #expect(decide(416, "bytes */100", expectedTotal: 100) == .alreadyComplete(totalBytes: 100))
        #expect(
            decide(416, "bytes */100", validator: Self.tag, extra: ["ETag": "\"v1\""])
                == .alreadyComplete(totalBytes: 100))
        // No Content-Range: the size known from before and the same validator on the 416.
        #expect(
            decide(416, expectedTotal: 100, validator: Self.tag, extra: ["ETag": "\"v1\""])
                == .alreadyComplete(totalBytes: 100))
    }

    @Test func unsatisfiableRangeOfAChangedFileRestarts() {
        // Another validator on the 416.
        #expect(
            decide(416, "bytes */100", validator: Self.tag, extra: ["ETag": "\"v2\""])
                == .restartFromZero(.validatorChanged))
        #expect(
            decide(416, expectedTotal: 100, validator: Self.tag, extra: ["ETag": "\"v2\""])
                == .restartFromZero(.validatorChanged))
        // Shorter than the bytes kept, or another size than known.
        #expect(
            decide(416, "bytes */50")
                == .restartFromZero(.lengthChanged(ContentRange(range: nil, completeLength: 50))))
        #expect(
            decide(416, "bytes */100", expectedTotal: 200)
                == .restartFromZero(.lengthChanged(ContentRange(range: nil, completeLength: 100))))
    }

    @Test func unsatisfiableRangeThatProvesNothingIsRechecked() {
        // A server refusing a range it could serve: keep the bytes, ask for the whole body.
        #expect(decide(416, "bytes */1000") == .recheckWithoutRange)
        #expect(decide(416, "bytes */1000", expectedTotal: 1000, validator: Self.tag) == .recheckWithoutRange)
        #expect(decide(416) == .recheckWithoutRange)
        #expect(decide(416, validator: Self.tag, extra: ["ETag": "\"v1\""]) == .recheckWithoutRange)
        // Complete by the size known before, but the 416 names no validator: not proof enough.
        #expect(decide(416, expectedTotal: 100, validator: Self.tag) == .recheckWithoutRange)
        // A weak tag on the 416 contradicts nothing and proves nothing.
        #expect(
            decide(416, "bytes */1000", validator: Self.tag, extra: ["ETag": "W/\"v9\""])
                == .recheckWithoutRange)
    }

    @Test(arguments: [304, 404, 412, 500, 503])
    func otherStatusesAreNotAboutTheRange(status: Int) {
        #expect(decide(status, "bytes 100-999/1000") == .notARangeResponse(status: status))
    }
}
