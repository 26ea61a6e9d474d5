import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Downloads against the demo server")
struct DownloadTests {
    let client = Client()

    @Test("A download streams to disk and lands at its destination, identical to the body")
    func downloadToDestination() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = try await DemoServer.url("/articles?page=1&size=50")
        let expected = try await client.request(TestForm(url: url)).data()
        let destination = scratch.file("nested/dir/articles.json")
        let form = TestDownloadForm(
            url: url, destination: destination, destinationOptions: .createIntermediateDirectories)
        let file = try await client.download(form).fileURL()
        #expect(file == destination)
        #expect(try Data(contentsOf: file) == expected)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.file("nested/dir").path) == [
                "articles.json"
            ])
    }

    @Test("An existing file at the destination is replaced when the form asks for it")
    func replacesExisting() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("weather.json")
        try Data("old contents that are longer than nothing".utf8).write(to: destination)
        let form = TestDownloadForm(
            url: try await DemoServer.url("/weather?city=oslo"), destination: destination,
            destinationOptions: .removePreviousFile)
        let file = try await client.download(form).fileURL()
        let weather = try JSONDecoder().decode([String: Weather].self, from: Data(contentsOf: file))
        #expect(weather["data"]?.city == "oslo")
    }

    @Test("The default destination is a new file in the temporary directory")
    func defaultDestination() async throws {
        let file = try await client.download(DefaultDestinationForm(url: try await DemoServer.url("/html")))
            .fileURL()
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(file.path.hasPrefix(FileManager.default.temporaryDirectory.path))
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("<html"))
    }

    @Test("A 404 fails with its body kept in memory, and leaves no file behind")
    func notFound() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let form = TestDownloadForm(
            url: try await DemoServer.url("/status/404"), destination: scratch.file("x"))
        let response = await client.download(form).response()
        #expect(response.error?.statusCode == 404)
        #expect(response.errorBody.map { String(decoding: $0, as: UTF8.self) }?.contains("404") == true)
        #expect(response.fileURL == nil)
        #expect(try scratch.contents().isEmpty)
    }

    @Test("Cancelling a download leaves neither the file nor a partial file")
    func cancelCleansUp() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let form = TestDownloadForm(
            url: try await DemoServer.url("/slow?ms=5000"), destination: scratch.file("slow"))
        let request = client.download(form)
        await request.waitUntilRunning()
        request.cancel()
        let response = await request.response()
        #expect(response.error?.isCancelled == true)
        #expect(try scratch.contents().isEmpty)
    }

    @Test("Download progress never goes backwards and ends at the total, before later handlers")
    @MainActor
    func progress() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let recorder = ProgressRecorder()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/articles?page=1&size=1000"), destination: scratch.file("a"))
        let request = client.download(form)
        let response = await withCheckedContinuation { continuation in
            request.progress(recorder).response { continuation.resume(returning: $0) }
        }
        let size = Int64(try Data(contentsOf: try #require(response.fileURL)).count)
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: size, totalBytes: size))
    }

    @Test("A download validates statuses like any request; a custom validator can refuse it")
    func validation() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        struct Refused: Error {}
        let form = TestDownloadForm(url: try await DemoServer.url("/html"), destination: scratch.file("page"))
        let response = await client.download(form).validate { _, response, data in
            #expect(data == nil)  // the body is on disk, not in memory
            if response.statusCode == 200 { throw Refused() }
        }.response()
        #expect(response.error?.kind == .validationFailed)
    }

    @Test("An invalid URL fails clearly without touching the disk")
    func invalidURL() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let response = await client.download(TestDownloadForm(url: "nope", destination: scratch.file("x")))
            .response()
        #expect(response.error?.kind == .invalidURL)
        #expect(try scratch.contents().isEmpty)
    }
}
