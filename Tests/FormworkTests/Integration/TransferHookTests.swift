import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Hooks on downloads and uploads", .timeLimit(.minutes(5)))
@MainActor
struct TransferHookTests {
    let client = Client()

    @Test("A download loads, shows progress, and counts as a success without a code")
    func download() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let log = EventLog()
        let screen = Screen()
        let bar = Headless.ProgressView()
        let warning = Headless.Alert()
        let info = Headless.Alert(message: "Downloaded")
        let done = EventCounter()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/65536"), destination: scratch.file("file.bin"))
        client.download(form)
            .load(RecordingLoad(name: "load", log: log, container: screen))
            .progress(bar)
            .warn(
                WeatherError.self, with: warning, onSuccess: { log.record("onSuccess \($0.code ?? "nil")") }
            )
            .inform(WeatherError.self, with: info)
            .response { _ in done.increment() }
        #expect(visibility(screen.view) == [true])
        await done.wait(for: 1)
        #expect(log.events == ["load.begin", "load.end", "onSuccess nil"])
        #expect(screen.view.masks.isEmpty)
        #expect(warning.presentedMessages.isEmpty)
        #expect(info.presentedMessages == ["Downloaded"])
        #expect(bar.fractionCompleted == 1)
    }

    @Test("A failed download warns with the status message and offers no success")
    func failedDownload() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let warning = Headless.Alert()
        let info = Headless.Alert(message: "Downloaded")
        let done = EventCounter()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/status/503"), destination: scratch.file("file.bin"))
        client.download(form)
            .warn(WeatherError.self, with: warning)
            .inform(WeatherError.self, with: info)
            .response { _ in done.increment() }
        await done.wait(for: 1)
        #expect(warning.presentedMessages.first?.hasPrefix(MessageCatalog.current.serverError) == true)
        #expect(info.presentedMessages.isEmpty)
    }

    @Test("An upload disables its button while it runs and warns with the server's message")
    func upload() async throws {
        let button = Headless.Control()
        let warning = Headless.Alert()
        let done = EventCounter()
        // /echo sends the uploaded JSON back under "json".
        let form = TestDataUpload(
            url: try await DemoServer.url("/echo"), data: Data(#"{"code":5001,"msg":"Quota exceeded"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        client.upload(form)
            .load(button)
            .warn(EchoedError.self, with: warning)
            .response { _ in done.increment() }
        #expect(!button.isEnabled)
        await done.wait(for: 1)
        #expect(button.isEnabled)
        #expect(warning.presentedMessages == ["Quota exceeded"])
    }
}

/// An error read from what `/echo` sends back of an uploaded JSON body.
private struct EchoedError: JSONErrorable {
    static let envelope = Envelope(codePath: "json.code", messagePath: "json.msg", successCodes: ["0"])
    let code: String?
    let message: String?
}
