import Foundation
import Testing

@testable import Formwork

@Suite struct ResumeDataTests {
    private let sample = ResumeData(
        url: "https://files.example.com/big.zip?v=2",
        method: .get,
        headers: [
            "Accept": "*/*", "Authorization": "Bearer secret", "X-Trace": "1", "Cookie": "a=b", "Range": "x",
        ],
        partialFileURL: URL(fileURLWithPath: "/var/data/big.zip.part"),
        bytesReceived: 1_048_576,
        totalBytes: 4_194_304,
        validator: .entityTag("\"v2-4194304\""),
        createdAt: Date(timeIntervalSince1970: 1_700_000_000.123_456)
    )

    @Test func encodedRoundTripIsEqual() throws {
        let data = try sample.encoded()
        let decoded = try ResumeData(encoded: data)
        #expect(decoded == sample)
        #expect(decoded.createdAt == sample.createdAt)
        // Through any JSON coder too (the value's own coding ignores the coder's date strategy).
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(try JSONDecoder().decode(ResumeData.self, from: encoder.encode(sample)) == sample)
    }

    @Test func encodedFormHasStableKeys() throws {
        let json = try #require(JSONSerialization.jsonObject(with: sample.encoded()) as? [String: Any])
        #expect(json["formatVersion"] as? Int == 1)
        #expect(json["url"] as? String == "https://files.example.com/big.zip?v=2")
        #expect(json["method"] as? String == "GET")
        #expect(json["partialFilePath"] as? String == "/var/data/big.zip.part")
        #expect(json["bytesReceived"] as? Int == 1_048_576)
        #expect(json["totalBytes"] as? Int == 4_194_304)
        #expect(json["entityTag"] as? String == "\"v2-4194304\"")
        #expect(json["lastModified"] == nil)
        #expect(json["headers"] as? [[String]] == [["Accept", "*/*"], ["X-Trace", "1"]])
    }

    @Test func credentialsAndRangeHeadersAreNeverKept() {
        #expect(sample.headers.map(\.name) == ["Accept", "X-Trace"])
    }

    @Test func lastModifiedValidatorAndMissingTotalRoundTrip() throws {
        var value = sample
        value.validator = .lastModified("Wed, 21 Oct 2015 07:28:00 GMT")
        value.totalBytes = nil
        value.method = .post
        #expect(try ResumeData(encoded: value.encoded()) == value)
        value.validator = nil
        #expect(try ResumeData(encoded: value.encoded()) == value)
    }

    @Test func newerFormatVersionIsRejected() throws {
        var json = try #require(JSONSerialization.jsonObject(with: sample.encoded()) as? [String: Any])
        json["formatVersion"] = 99
        let data = try JSONSerialization.data(withJSONObject: json)
        #expect(throws: DecodingError.self) { try ResumeData(encoded: data) }
        #expect(throws: (any Error).self) { try ResumeData(encoded: Data("not json".utf8)) }
    }

    @Test func resumeHeadersUseTheOffsetAndValidator() {
        #expect(sample.isResumable)
        #expect(sample.resumeHeaders == ["Range": "bytes=1048576-", "If-Range": "\"v2-4194304\""])
        var dated = sample
        dated.validator = .lastModified("Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(dated.resumeHeaders?["If-Range"] == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func withoutValidatorOrBytesResumingIsNotSafe() {
        var noValidator = sample
        noValidator.validator = nil
        #expect(!noValidator.isResumable)
        #expect(noValidator.resumeHeaders == nil)
        var nothingYet = sample
        nothingYet.bytesReceived = 0
        #expect(nothingYet.resumeHeaders == nil)
    }

    @Test func makeFromAFullResponse() throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:8080/files/1000")))
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        request.setValue("demo", forHTTPHeaderField: "X-App")
        let headers: HTTPHeaders = ["ETag": "\"files-1000-v0\"", "Content-Length": "1000"]
        let resume = try #require(
            ResumeData.make(
                request: request, responseHeaders: headers, status: 200,
                partialFileURL: URL(fileURLWithPath: "/tmp/p"), bytesReceived: 400))
        #expect(resume.url == "http://127.0.0.1:8080/files/1000")
        #expect(resume.method == .get)
        #expect(resume.headers == ["X-App": "demo"])
        #expect(resume.totalBytes == 1000)
        #expect(resume.validator == .entityTag("\"files-1000-v0\""))
        #expect(resume.resumeHeaders?["Range"] == "bytes=400-")
    }

    @Test func makeFromAPartialResponseTakesTheTotalFromContentRange() throws {
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/f")))
        let headers: HTTPHeaders = [
            "Content-Range": "bytes 500-999/1000", "Content-Length": "500",
            "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
        ]
        let resume = try #require(
            ResumeData.make(
                request: request, responseHeaders: headers, status: 206,
                partialFileURL: URL(fileURLWithPath: "/tmp/p"), bytesReceived: 700))
        #expect(resume.totalBytes == 1000)
        #expect(resume.validator == .lastModified("Mon, 01 Jan 2024 00:00:00 GMT"))
    }
}

@Suite struct IfRangeValidatorTests {
    @Test(
        arguments: [
            // A strong ETag is used as it is.
            (["ETag": "\"abc\""], ResumeData.Validator.entityTag("\"abc\"")),
            (["ETag": "\"\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], .entityTag("\"\"")),
            // A weak ETag must not go into If-Range, and then neither may the date (RFC 9110 13.1.5).
            (["ETag": "W/\"abc\"", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], nil),
            (["ETag": "W/\"abc\""], nil),
            // An ETag without quotes is not weak: used, and sent back exactly as the server spelled it.
            (["ETag": "abc123", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], .entityTag("abc123")),
            (["ETag": " files-10-v0 "], .entityTag("files-10-v0")),
            // Weak without quotes is still weak; a malformed ETag is not trusted, nor its date.
            (["ETag": "W/abc", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], nil),
            (["ETag": "\"a\"b\""], nil),
            (["ETag": "\"abc"], nil),
            (["ETag": "a b", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"], nil),
            // No ETag: Last-Modified, when strong (older than Date by a second or more, or no Date).
            (
                ["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"],
                .lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
            ),
            (
                ["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT", "Date": "Mon, 01 Jan 2024 00:00:01 GMT"],
                .lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
            ),
            (
                ["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT", "Date": "Mon, 01 Jan 2024 00:00:00 GMT"],
                nil
            ),
            (["Last-Modified": "yesterday"], nil),
            ([:], nil),
        ] as [([String: String], ResumeData.Validator?)])
    func validatorChoice(headers: [String: String], expected: ResumeData.Validator?) {
        #expect(ResumeData.Validator.forIfRange(from: HTTPHeaders(headers)) == expected)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func httpDateFormats(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test func httpDateRoundTripAndGarbage() {
        let date = Date(timeIntervalSince1970: 1_704_067_200)
        #expect(HTTPDate.string(from: date) == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.string(from: date)) == date)
        #expect(HTTPDate.parse("") == nil)
        #expect(HTTPDate.parse("2024-01-01") == nil)
    }
}
