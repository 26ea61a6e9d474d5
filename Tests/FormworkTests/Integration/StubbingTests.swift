import Foundation
import Testing

@testable import Formwork

@Suite("Stubbing for app tests")
struct StubbingTests {
    let client = Client()
    let api = "https://api.example.com"

    @Test("A stubbed response decodes like a real one, and the request is recorded")
    func decode() async throws {
        let stubs = StubRegistry()
        stubs.stub(
            .get, api + "/weather",
            .json(
                #"{"data":{"code":"200","message":"OK","city":"rome","temperature":21,"condition":"Sunny","forecast":[]}}"#
            ))
        let session = Session(stubs: stubs)
        let weather = try await client.request(
            TestForm(url: api + "/weather", parameters: ["city": "rome"]), session: session
        )
        .decode(Weather.self, atKeyPath: "data")
        #expect(weather.city == "rome")
        #expect(stubs.requests.count == 1)
        #expect(stubs.requests.first?.url?.query == "city=rome")
    }

    @Test("Validation and retries run as for real responses: 503, 503, then 200")
    func retriesOverSequence() async throws {
        let stubs = StubRegistry()
        stubs.stub(
            .get, api + "/flaky",
            [.text("busy", statusCode: 503), .text("busy", statusCode: 503), .json("{}")])
        let monitor = RecordingMonitor()
        var configuration = Session.Configuration()
        configuration.interceptors.retriers = [RetryPolicy(baseDelay: 0.01)]
        configuration.interceptors.eventMonitors = [monitor]
        let session = Session(stubs: stubs, configuration: configuration)
        let value = try await client.request(TestForm(url: api + "/flaky"), session: session).decode(
            EmptyBody.self)
        #expect(value == EmptyBody())
        #expect(stubs.requests.count == 3)
        #expect(monitor.events.filter { $0.hasPrefix("retry") } == ["retry 1", "retry 2"])
        #expect(monitor.metrics.first?.attempts == 3)

        let failing = StubRegistry()
        failing.stub(.get, api + "/down", .text("down", statusCode: 500))
        let response = await client.request(TestForm(url: api + "/down"), session: Session(stubs: failing))
            .handledString()
        #expect(response.error?.statusCode == 500)
        #expect(response.error?.kind == .unacceptableStatusCode)
    }

    @Test("A stubbed transport failure is a network failure with its URLError code")
    func transportFailure() async throws {
        let stubs = StubRegistry()
        stubs.stub(nil, api + "/offline", .failure(.notConnectedToInternet))
        let response = await client.request(TestForm(url: api + "/offline"), session: Session(stubs: stubs))
            .handledString()
        #expect(response.error?.isNetworkFailure == true)
        #expect(response.error?.urlErrorCode == .notConnectedToInternet)
    }

    @Test("A request no stub matches fails without touching the network")
    func unmatched() async throws {
        let stubs = StubRegistry()
        stubs.stub(.post, api + "/only-post", .json("{}"))
        let response = await client.request(TestForm(url: api + "/only-post"), session: Session(stubs: stubs))
            .handledString()
        #expect(response.error?.urlErrorCode == .resourceUnavailable)
    }

    @Test("Downloads and progress work through stubs, chunk by chunk")
    @MainActor
    func downloadThroughStub() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let stubs = StubRegistry()
        stubs.stub(.get, api + "/file.bin", StubResponse(body: body, chunkSize: 10_000))
        let recorder = ProgressRecorder()
        let request = client.download(
            TestDownloadForm(url: api + "/file.bin", destination: scratch.file("file.bin")),
            session: Session(stubs: stubs))
        let response = await withCheckedContinuation { continuation in
            request.progress(recorder).response { continuation.resume(returning: $0) }
        }
        #expect(try Data(contentsOf: try #require(response.fileURL)) == body)
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: 100_000, totalBytes: 100_000))
    }

    @Test("A delayed stub can be cancelled before it answers")
    func delayedCancel() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, api + "/slow", StubResponse(body: Data("late".utf8), delay: 60))
        let request = client.request(TestForm(url: api + "/slow"), session: Session(stubs: stubs))
        await request.waitUntilRunning()
        let started = Date()
        request.cancel()
        let response = await request.handledString()
        #expect(response.error?.isCancelled == true)
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the server would answer
    }

    @Test("Dynamic stubs see the request")
    func dynamic() async throws {
        let stubs = StubRegistry()
        stubs.stub(
            where: { $0.url?.path == "/echo-method" },
            respond: { request in .text(request.httpMethod ?? "?") })
        let session = Session(stubs: stubs)
        let text = try await client.request(
            TestForm(url: api + "/echo-method", method: .delete), session: session
        )
        .string()
        #expect(text == "DELETE")
    }

    @Test("Hooks run on stubbed responses as on real ones: load, warn")
    @MainActor
    func hooksThroughStubs() async throws {
        let stubs = StubRegistry()
        stubs.stub(
            .get, api + "/weather",
            [.json(#"{"data":{"code":"404","message":"City not found"}}"#, delay: 0.2)])
        let screen = Headless.View()
        let alert = Headless.Alert()
        let request = client.request(TestForm(url: api + "/weather"), session: Session(stubs: stubs))
            .load(LoadType.default(container: screen))
            .warn(WeatherError.self, with: alert)
        #expect(screen.masks.count == 1)
        _ = await request.handledString()
        #expect(screen.masks.isEmpty)
        #expect(alert.presentedMessages == ["City not found"])
    }
}
