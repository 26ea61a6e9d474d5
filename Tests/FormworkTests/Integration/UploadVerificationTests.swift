import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// What the demo server's `/upload` reports about a body it received.
struct UploadReport: Decodable, Sendable {
    struct Part: Decodable, Sendable, Equatable {
        let name: String?
        let fileName: String?
        let contentType: String?
        let bytes: Int64
        let md5: String?
    }

    let method: String
    let bytes: Int64
    let md5: String?
    let contentType: String?
    let contentLength: Int64?
    let chunked: Bool
    let parts: [Part]?
    let error: String?
}

struct TestMultipartUpload: UploadMultipartFormable {
    var url: String
    var multipartFormData: MultipartFormData
    var encodingMemoryThreshold: Int = MultipartFormData.defaultEncodingMemoryThreshold
    var encodingDirectory: URL = FileManager.default.temporaryDirectory
}

@Suite("Every upload kind, verified by the server's MD5 and part list")
struct UploadVerificationTests {
    let client = Client()

    @Test("Data, file and stream uploads arrive intact")
    func plainKinds() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = try await DemoServer.url("/upload")
        let payload = try await offPool { DemoFileContent.bytes(size: 3_000_000, version: 7) }
        let digest = try await offPool { MD5.hex(payload) }

        let data = try await client.upload(TestDataUpload(url: url, data: payload)).decode(UploadReport.self)
        #expect(data.bytes == 3_000_000)
        #expect(data.md5 == digest)
        #expect(!data.chunked)

        let file = try scratch.write(payload, to: "payload.bin")
        let fromFile = try await client.upload(TestFileUpload(url: url, fileURL: file)).decode(
            UploadReport.self)
        #expect(fromFile.md5 == digest)
        #expect(fromFile.bytes == 3_000_000)

        let stream = try await client.upload(TestStreamUpload(url: url, payload: payload)).decode(
            UploadReport.self)
        #expect(stream.md5 == digest)
        #expect(stream.chunked)
    }

    @Test("A multipart form in memory: text fields and files, with names, file names and MIME types")
    func multipartInMemory() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let photo = try scratch.write(DemoFileContent.bytes(size: 50_000, version: 3), to: "photo.png")
        let notes = Data("plain notes 上海".utf8)
        var form = MultipartFormData()
        form.append(Data("42".utf8), name: "userID")
        form.append(photo, name: "avatar")
        form.append(notes, name: "notes", fileName: "notes.txt", mimeType: "text/plain")
        form.append(Data([0, 1, 2]), name: "blob", fileName: "blob")
        let report = try await client.upload(
            TestMultipartUpload(url: try await DemoServer.url("/upload"), multipartFormData: form)
        )
        .decode(UploadReport.self)
        #expect(report.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(report.bytes == form.contentLength)
        let parts = try #require(report.parts)
        #expect(parts.map(\.name) == ["userID", "avatar", "notes", "blob"])
        #expect(parts.map(\.fileName) == [nil, "photo.png", "notes.txt", "blob"])
        #expect(parts[1].contentType == "image/png")
        #expect(parts[3].contentType == "application/octet-stream")
        #expect(parts[1].md5 == MD5.hex(try Data(contentsOf: photo)))
        #expect(parts[2].md5 == MD5.hex(notes))
        #expect(parts[0].bytes == 2)
    }

    @Test("A 200 MB file under a small threshold is sent from a temp file that is then removed")
    func largeMultipart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let encoding = scratch.file("encoding")
        try FileManager.default.createDirectory(at: encoding, withIntermediateDirectories: true)
        let big = scratch.file("video.mp4")
        let size: Int64 = 200_000_000
        let expectedDigest = try await offPool { () throws -> String in
            guard FileManager.default.createFile(atPath: big.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let handle = try FileHandle(forWritingTo: big)
            var offset: Int64 = 0
            while offset < size {
                let end = min(size, offset + 8_000_000)
                try handle.write(contentsOf: DemoFileContent.bytes(in: offset..<end))
                offset = end
            }
            try handle.close()
            return try MD5.hex(ofFile: big)
        }

        var form = MultipartFormData()
        form.append(Data("holiday".utf8), name: "title")
        form.append(big, name: "video")
        let upload = TestMultipartUpload(
            url: try await DemoServer.url("/upload"), multipartFormData: form,
            encodingMemoryThreshold: 1_000_000,
            encodingDirectory: encoding)
        let request = client.upload(upload)
        // Looked at when the first bytes are reported sent, on the delegate queue, while the task
        // still runs (the temp file goes only once it has ended), not when a consumer gets round
        // to it: under a loaded sanitizer run that could be after the end.
        let temporaryFiles = Protected<Int?>(nil)
        request.core.addProgressObserver { progress, _ in
            guard progress.completedBytes > 0 else { return }
            let count = (try? FileManager.default.contentsOfDirectory(atPath: encoding.path).count) ?? 0
            temporaryFiles.withLock { seen in
                if seen == nil { seen = count }
            }
        }
        let report = try await request.decode(UploadReport.self)
        #expect(temporaryFiles.current == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: encoding.path).isEmpty)
        #expect(report.bytes == form.contentLength)
        #expect(report.parts?.last?.bytes == size)
        #expect(report.parts?.last?.md5 == expectedDigest)
        #expect(report.parts?.last?.contentType == "video/mp4")
    }

    @Test("A multipart form with a missing file fails before sending and leaves no temp file")
    func missingPart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var form = MultipartFormData()
        form.append(scratch.file("gone.jpg"), name: "photo")
        let request = client.upload(
            TestMultipartUpload(
                url: try await DemoServer.url("/upload"), multipartFormData: form, encodingMemoryThreshold: 0,
                encodingDirectory: scratch.url))
        let response = await request.handledString()
        #expect(response.error?.kind == .fileOperationFailed)
        #expect(response.error?.reason == .fileNotFound)
        #expect(response.error?.fileURL == scratch.file("gone.jpg"))
        #expect(response.error?.failureReason.contains("photo") == true)  // names the part
        #expect(response.error?.request?.url?.path == "/upload")
        #expect(request.core.task == nil)
        #expect(try scratch.contents().isEmpty)
    }

    @Test(
        "A file part that holds the boundary is a multipartEncodingFailed, naming the file; nothing is sent")
    func boundaryInAFilePart() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data("before --fixed-boundary after".utf8), to: "part.txt")
        var form = MultipartFormData(boundary: "fixed-boundary")
        form.append(file, name: "doc")
        let request = client.upload(
            TestMultipartUpload(url: try await DemoServer.url("/upload"), multipartFormData: form))
        let error = try #require(await request.handledString().error)
        #expect(error.kind == .multipartEncodingFailed)
        #expect(error.reason == .boundaryCollision)
        #expect(error.fileURL == file)
        #expect(error.userMessage(using: .english).hasPrefix(MessageCatalog.english.invalidRequest))
        #expect(request.core.task == nil)
    }
}
