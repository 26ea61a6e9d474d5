import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Plain `URLSession` against `POST|PUT /upload`, with bodies built by `MultipartFormData`.
@Suite("Demo server upload endpoint")
struct UploadServerTests {
    private let session = URLSession(configuration: .ephemeral)

    typealias Reply = UploadReport

    private func request(_ path: String, method: String = "POST", contentType: String? = nil) async throws
        -> URLRequest
    {
        var request = URLRequest(url: try #require(URL(string: try await DemoServer.url(path))))
        request.httpMethod = method
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        return request
    }

    private func decode(_ result: (Data, URLResponse)) throws -> (Reply, Int) {
        let status = try #require(result.1 as? HTTPURLResponse).statusCode
        return (try JSONDecoder().decode(Reply.self, from: result.0), status)
    }

    @Test(
        "The body's size and MD5 come back",
        arguments: [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("The quick brown fox jumps over the lazy dog", "9e107d9d372bb6826bd81d3542a419d6"),
        ])
    func smallBodies(text: String, md5: String) async throws {
        let request = try await request("/upload", method: "PUT", contentType: "text/plain")
        let (reply, status) = try decode(try await session.upload(for: request, from: Data(text.utf8)))
        #expect(status == 200)
        #expect(reply.method == "PUT")
        #expect(reply.bytes == Int64(text.utf8.count))
        #expect(reply.md5 == md5)
        #expect(reply.contentType == "text/plain")
        #expect(reply.parts == nil)
    }

    @Test("A 1 MiB body is counted and hashed; ?md5=0 skips the hash; the tag counts the bytes")
    func mebibyte() async throws {
        let body = DemoFileContent.bytes(size: 1 << 20)
        let tag = "t-\(UUID().uuidString)"
        let request = try await request("/upload?tag=\(tag)", contentType: "application/octet-stream")
        let (reply, _) = try decode(try await session.upload(for: request, from: body))
        #expect(reply.bytes == 1 << 20)
        #expect(reply.contentLength == 1 << 20)
        #expect(!reply.chunked)
        #expect(reply.md5 == "93954e9fc33075331c90a74f9acef838")
        let unhashed = try await self.request("/upload?md5=0&tag=\(tag)")
        let (quick, _) = try decode(try await session.upload(for: unhashed, from: body))
        #expect(quick.bytes == 1 << 20)
        #expect(quick.md5 == nil)
        let (statsData, _) = try await session.data(
            from: try #require(URL(string: try await DemoServer.url("/stats?tag=\(tag)"))))
        let stats = try JSONDecoder().decode(StatsReply.self, from: statsData)
        #expect(stats.tag.requests == 2)
        #expect(stats.tag.bytesReceived == 2 << 20)
        #expect(stats.bytesReceived["upload", default: 0] >= 2 << 20)
    }

    @Test("A stream body arrives chunked, and is counted the same")
    func chunkedBody() async throws {
        let body = DemoFileContent.bytes(size: 3_000_000)
        var request = try await request("/upload")
        request.httpBodyStream = InputStream(data: body)
        let (reply, status) = try decode(try await session.data(for: request))
        #expect(status == 200)
        #expect(reply.chunked)
        #expect(reply.contentLength == nil)
        #expect(reply.bytes == 3_000_000)
        #expect(reply.md5 == "b2f6d0571b84bbd811991f94a269e9e8")
    }

    /// A form with a field, a JSON field, an in-memory file and a 3 MB file on disk.
    private func form(in scratch: ScratchDirectory) throws -> MultipartFormData {
        let file = try scratch.write(DemoFileContent.bytes(size: 3_000_000), to: "big.bin")
        var form = MultipartFormData()
        form.append(Data("Ada".utf8), name: "name")
        form.append(Data(#"{"k":1}"#.utf8), name: "meta", mimeType: "application/json")
        form.append(DemoFileContent.bytes(size: 65536, version: 1), name: "we\"ird", fileName: "图 1.png")
        form.append(file, name: "upload")
        return form
    }

    private let expectedParts = [
        Reply.Part(
            name: "name", fileName: nil, contentType: nil, bytes: 3, md5: "1a382809b7c03f686e12dd15677c5497"),
        Reply.Part(
            name: "meta", fileName: nil, contentType: "application/json", bytes: 7,
            md5: "e59138f35192e320088b83d28388d6bb"),
        Reply.Part(
            name: "we%22ird", fileName: "图 1.png", contentType: "image/png", bytes: 65536,
            md5: "3868612687142b5973145081d96222cf"),
        Reply.Part(
            name: "upload", fileName: "big.bin", contentType: "application/octet-stream", bytes: 3_000_000,
            md5: "b2f6d0571b84bbd811991f94a269e9e8"),
    ]

    @Test("A MultipartFormData body (in memory) is parsed back into the same parts")
    func multipartInMemory() async throws {
        let scratch = try ScratchDirectory("upload")
        defer { scratch.remove() }
        let form = try form(in: scratch)
        let body = try form.encodedData()
        let request = try await request("/upload", contentType: form.contentType)
        let (reply, status) = try decode(try await session.upload(for: request, from: body))
        #expect(status == 200)
        #expect(reply.error == nil)
        #expect(reply.bytes == form.contentLength)
        #expect(reply.contentType == form.contentType)
        #expect(reply.parts == expectedParts)
    }

    @Test("A MultipartFormData body built in a temporary file uploads the same parts")
    func multipartFromFile() async throws {
        let scratch = try ScratchDirectory("upload")
        defer { scratch.remove() }
        let form = try form(in: scratch)
        let body = try form.encodedBody(memoryThreshold: 1_000_000, temporaryDirectory: scratch.url)
        defer { body.removeTemporaryFile() }
        guard case .temporaryFile(let url, let length) = body else {
            Issue.record("expected a temporary file")
            return
        }
        let request = try await request("/upload", contentType: form.contentType)
        let (reply, status) = try decode(try await session.upload(for: request, fromFile: url))
        #expect(status == 200)
        #expect(reply.bytes == length)
        #expect(reply.parts == expectedParts)
    }

    @Test("A multipart body cut before its closing boundary gets 400 with the reason")
    func truncatedMultipart() async throws {
        var form = MultipartFormData()
        form.append(Data("value".utf8), name: "field")
        let body = try form.encodedData()
        let request = try await request("/upload", contentType: form.contentType)
        let (reply, status) = try decode(try await session.upload(for: request, from: body.dropLast(10)))
        #expect(status == 400)
        #expect(reply.error?.contains("closing boundary") == true)
        #expect(reply.bytes == Int64(body.count - 10))
    }

    @Test("Preamble, padding after a boundary, a part without headers and an epilogue are all parsed")
    func handWrittenMultipart() async throws {
        let body =
            "ignored preamble\r\n--b  \r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nxyz\r\n"
            + "--b\r\n\r\nno headers\r\n--b--\r\nignored epilogue"
        let request = try await request("/upload", contentType: "multipart/form-data; boundary=\"b\"")
        let (reply, status) = try decode(try await session.upload(for: request, from: Data(body.utf8)))
        #expect(status == 200)
        #expect(reply.parts?.map(\.name) == ["a", nil])
        #expect(reply.parts?.map(\.bytes) == [3, 10])
        #expect(reply.parts?.first?.md5 == "d16fb36f0911f878998c136191af705e")
    }

    @Test("Other methods on /upload get 405")
    func methodNotAllowed() async throws {
        let (_, response) = try await session.data(for: try await request("/upload", method: "GET"))
        #expect((response as? HTTPURLResponse)?.statusCode == 405)
    }
}
