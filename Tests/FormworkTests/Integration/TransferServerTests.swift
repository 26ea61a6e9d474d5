import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Plain `URLSession` against the demo server's transfer endpoints, so that the download and
/// upload engines' tests can rely on what these endpoints do.
@Suite("Demo server transfer endpoints")
struct TransferServerTests {
    private let session = URLSession(configuration: .ephemeral)

    private func get(_ path: String, method: String = "GET", headers: [String: String] = [:]) async throws
        -> (Data, HTTPURLResponse)
    {
        var request = URLRequest(url: try #require(URL(string: try await DemoServer.url(path))))
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// A tag no other test uses, for `/stats?tag=`.
    private func newTag() -> String { "t-\(UUID().uuidString)" }

    private func tagStats(_ tag: String) async throws -> TagStats {
        let (data, _) = try await get("/stats?tag=\(tag)")
        return try JSONDecoder().decode(StatsReply.self, from: data).tag
    }

    @Test("GET /files/{size} sends the documented content and validators")
    func wholeFile() async throws {
        let (data, response) = try await get("/files/1000")
        #expect(response.statusCode == 200)
        #expect(data == DemoFileContent.bytes(size: 1000))
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "1000")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"files-1000-v0\"")
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) != nil)
        // The validator Formwork would keep for a resume of this download.
        let validator = ResumeData.Validator.forIfRange(from: HTTPHeaders(responseHeadersOf: response))
        #expect(validator == .entityTag("\"files-1000-v0\""))
    }

    @Test("HEAD /files/{size} has the headers and no body; size 0 is an empty file")
    func headAndEmpty() async throws {
        let (head, headResponse) = try await get("/files/5000", method: "HEAD")
        #expect(headResponse.statusCode == 200)
        #expect(head.isEmpty)
        #expect(headResponse.value(forHTTPHeaderField: "Content-Length") == "5000")
        let (empty, emptyResponse) = try await get("/files/0")
        #expect(emptyResponse.statusCode == 200)
        #expect(empty.isEmpty)
    }

    @Test(
        "Range requests",
        arguments: [
            ("bytes=100-", 206, "bytes 100-999/1000", 100..<1000),
            ("bytes=100-199", 206, "bytes 100-199/1000", 100..<200),
            ("bytes=-10", 206, "bytes 990-999/1000", 990..<1000),
            ("bytes=900-5000", 206, "bytes 900-999/1000", 900..<1000),
            ("bytes=999-", 206, "bytes 999-999/1000", 999..<1000),
            ("bytes=1000-", 416, "bytes */1000", 0..<0),
            ("bytes=0-1,5-6", 200, nil, 0..<1000),
            ("bytes=5-2", 200, nil, 0..<1000),
            ("items=0-1", 200, nil, 0..<1000),
        ] as [(String, Int, String?, Range<Int64>)])
    func ranges(range: String, status: Int, contentRange: String?, bytes: Range<Int64>) async throws {
        let (data, response) = try await get("/files/1000", headers: ["Range": range])
        #expect(response.statusCode == status)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == contentRange)
        #expect(data == DemoFileContent.bytes(in: bytes))
    }

    @Test(
        "If-Range: a matching validator keeps the range, anything else gets the whole file",
        arguments: [
            ("\"files-1000-v0\"", 206), ("Mon, 01 Jan 2024 00:00:00 GMT", 206), ("\"files-1000-v1\"", 200),
            ("W/\"files-1000-v0\"", 200), ("Tue, 02 Jan 2024 00:00:00 GMT", 200),
        ])
    func ifRange(validator: String, status: Int) async throws {
        let (data, response) = try await get(
            "/files/1000", headers: ["Range": "bytes=600-", "If-Range": validator])
        #expect(response.statusCode == status)
        #expect(data == DemoFileContent.bytes(in: status == 206 ? 600..<1000 : 0..<1000))
        let decision = ResumeDecision.decide(
            offset: 600, status: response.statusCode, headers: HTTPHeaders(responseHeadersOf: response))
        #expect(
            decision
                == (status == 206
                    ? .append(ContentRange("bytes 600-999/1000")!) : .restartFromZero(.wholeFileSent)))
    }

    @Test("version=V is a changed file: other content, ETag and Last-Modified; an old If-Range gets 200")
    func changedFile() async throws {
        let (data, response) = try await get(
            "/files/65536?version=1", headers: ["Range": "bytes=1000-", "If-Range": "\"files-65536-v0\""])
        #expect(response.statusCode == 200)
        #expect(data == DemoFileContent.bytes(size: 65536, version: 1))
        #expect(data != DemoFileContent.bytes(size: 65536))
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"files-65536-v1\"")
        #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Tue, 02 Jan 2024 00:00:00 GMT")
    }

    @Test("wrongRange=1 answers a range with a 206 that starts at 0, which a resume must not append")
    func wrongRange() async throws {
        let (data, response) = try await get("/files/1000?wrongRange=1", headers: ["Range": "bytes=500-"])
        #expect(response.statusCode == 206)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 0-499/1000")
        #expect(data == DemoFileContent.bytes(in: 0..<500))
        let decision = ResumeDecision.decide(
            offset: 500, status: 206, headers: HTTPHeaders(responseHeadersOf: response))
        #expect(decision == .recheckWithoutRange)
    }

    @Test("cutAt drops the connection mid-body; a resume fetches only the missing bytes")
    func cutAndResume() async throws {
        let tag = newTag()
        await #expect(throws: (any Error).self) {
            _ = try await get("/files/100000?cutAt=40000&tag=\(tag)")
        }
        let afterCut = try await tagStats(tag)
        #expect(afterCut.requests == 1)
        #expect(afterCut.bytesSent == 40000)
        let (rest, response) = try await get(
            "/files/100000?tag=\(tag)", headers: ["Range": "bytes=40000-", "If-Range": "\"files-100000-v0\""])
        #expect(response.statusCode == 206)
        #expect(rest == DemoFileContent.bytes(in: 40000..<100_000))
        let total = try await tagStats(tag)
        #expect(total.requests == 2)
        #expect(total.bytesSent == 100_000)
    }

    @Test("chunked=1 sends no Content-Length")
    func chunked() async throws {
        let (data, response) = try await get("/files/300000?chunked=1")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Length") == nil)
        #expect(response.expectedContentLength == -1)
        #expect(data == DemoFileContent.bytes(size: 300_000))
    }

    @Test("rate=BPS throttles the body")
    func throttled() async throws {
        let start = Date()
        let (data, _) = try await get("/files/30000?rate=50000")
        #expect(data == DemoFileContent.bytes(size: 30000))
        #expect(Date().timeIntervalSince(start) >= 0.45)  // 30 000 bytes at 50 000 B/s: 0.6 s
    }

    @Test("A 64 MiB download is byte-identical to the local regeneration")
    func largeDownload() async throws {
        let size: Int64 = 64 << 20
        let tag = newTag()
        let (data, response) = try await get("/files/\(size)?tag=\(tag)")
        #expect(response.statusCode == 200)
        #expect(Int64(data.count) == size)
        #expect(data == DemoFileContent.bytes(size: size))
        #expect(try await tagStats(tag).bytesSent == size)
    }

    @Test(
        "Bad /files requests get 400",
        arguments: [
            "/files/abc", "/files/-1", "/files/", "/files/4294967297", "/files/10?version=x",
            "/files/10?cutAt=-1",
            "/files/10?rate=0",
        ])
    func badFileRequests(path: String) async throws {
        let (_, response) = try await get(path)
        #expect(response.statusCode == 400)
    }
}
