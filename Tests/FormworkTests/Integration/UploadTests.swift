import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Uploads against the demo server")
struct UploadTests {
    let client = Client()

    @Test("Data uploads are POSTed with application/octet-stream unless the form says otherwise")
    func dataUpload() async throws {
        let url = try await DemoServer.url("/echo")
        let echo = try await client.upload(TestDataUpload(url: url, data: Data("hello, 上海".utf8))).decode(
            Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.body == "hello, 上海")
        #expect(echo.contentType == "application/octet-stream")
        let typed = TestDataUpload(
            url: url, data: Data(#"{"a":1}"#.utf8), headers: ["Content-Type": "application/json"])
        let json = try await client.upload(typed).decode(Echo.self)
        #expect(json.contentType == "application/json")
        #expect(json.json?["a"] == .number(1))
    }

    @Test("File uploads send the file as it is, with its length")
    func fileUpload() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("notes.txt")
        let text = String(repeating: "Formwork uploads files in constant memory.\n", count: 2000)
        try Data(text.utf8).write(to: file)
        let echo = try await client.upload(
            TestFileUpload(url: try await DemoServer.url("/echo"), fileURL: file)
        )
        .decode(Echo.self)
        #expect(echo.method == "PUT")
        #expect(echo.bodyLength == text.utf8.count)
        #expect(echo.body == text)
        #expect(echo.headers["content-length"] == String(text.utf8.count))
    }

    @Test("A missing file or a directory fails before anything is sent", arguments: ["missing.bin", ""])
    func missingFile(name: String) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let request = client.upload(
            TestFileUpload(url: try await DemoServer.url("/echo"), fileURL: scratch.file(name)))
        let response = await request.handledString()
        #expect(response.error?.kind == .fileOperationFailed)
        #expect(response.error?.reason == (name.isEmpty ? .fileIsDirectory : .fileNotFound))
        #expect(response.error?.fileURL == scratch.file(name))
        #expect(response.error?.request?.url?.path == "/echo")
        #expect(request.core.task == nil)
    }

    @Test("Stream uploads send the stream's bytes")
    func streamUpload() async throws {
        let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        let form = TestStreamUpload(url: try await DemoServer.url("/echo"), payload: payload)
        let echo = try await client.upload(form).decode(Echo.self)
        #expect(echo.bodyLength == payload.count)
        #expect(form.made.count == 1)
    }

    @Test("A stream that cannot be made fails with requestBuildFailed")
    func streamFails() async throws {
        let form = TestStreamUpload(url: try await DemoServer.url("/echo"), payload: Data(), fails: true)
        let response = await client.upload(form).handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.error?.underlyingError is TestStreamUpload.NoStream)
    }

    @Test("Each attempt gets a fresh stream (a re-send cannot reuse a consumed one)")
    func freshStreamPerAttempt() async throws {
        let payload = Data(repeating: 7, count: 10_000)
        let form = TestStreamUpload(url: try await DemoServer.url("/echo"), payload: payload)
        let request = client.upload(form)
        #expect(try await request.decode(Echo.self).bodyLength == payload.count)
        request.core.restart()
        await request.waitUntilRunning()
        let second = await request.handled(Echo.self)
        #expect(second.value?.bodyLength == payload.count)
        #expect(form.made.count == 2)
    }

    @Test("Upload progress reports bytes sent, never backwards, ending at the total")
    @MainActor
    func uploadProgress() async throws {
        let recorder = ProgressRecorder()
        let payload = Data(repeating: 1, count: 3_000_000)
        let request = client.upload(TestDataUpload(url: try await DemoServer.url("/echo"), data: payload))
        _ = await withCheckedContinuation { continuation in
            request.progress(recorder).responseData { continuation.resume(returning: $0) }
        }
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: 3_000_000, totalBytes: 3_000_000))
    }

    @Test("progressUpdates ends with the final value when the request ends")
    func progressSequence() async throws {
        let payload = Data(repeating: 2, count: 1_000_000)
        let request = client.upload(TestDataUpload(url: try await DemoServer.url("/echo"), data: payload))
        var last: TransferProgress?
        for await progress in request.progressUpdates {
            if let last { #expect(progress.completedBytes >= last.completedBytes) }
            last = progress
        }
        #expect(last == TransferProgress(completedBytes: 1_000_000, totalBytes: 1_000_000))
    }
}
