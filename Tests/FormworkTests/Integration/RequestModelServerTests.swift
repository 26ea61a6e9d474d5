import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("RequestModel against the demo server", .timeLimit(.minutes(5)))
@MainActor
struct RequestModelServerTests {
    let client = Client()

    /// What `/slow?ms=N` answers.
    private struct Slept: Decodable, Sendable, Equatable {
        let sleptMs: Int
    }

    /// What `/flaky` answers once its key is up (inside `data`).
    private struct FlakyData: Decodable, Sendable {
        let attempt: Int
    }

    /// A screen that owns its model and sends from itself, as a SwiftUI screen's model does.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor
    private final class WeatherScreen: Requestable {
        let weather = RequestModel<Weather>()
        let url: String

        init(url: String) { self.url = url }

        func refresh() -> DataRequest {
            request(TestForm(url: url)).bind(to: weather, atKeyPath: "data")
        }
    }

    /// Loads `path` into `model` (the value at `"data"`), checks that loading began at once, and
    /// returns the model's changes once every handler of the request ran.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    private func weather(at path: String, into model: RequestModel<Weather>) async throws
        -> ModelChanges<Weather>
    {
        let changes = ModelChanges(model)
        let done = EventCounter()
        client.request(TestForm(url: try await DemoServer.url(path)))
            .bind(to: model, atKeyPath: "data")
            .response { _ in done.increment() }
        #expect(model.phase.isLoading)
        #expect(changes.names == ["phase"])
        await done.wait(for: 1)
        return changes
    }

    @Test("Loading, then succeeded with the decoded value: phase, phase, value")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func succeeds() async throws {
        let model = RequestModel<Weather>()
        let changes = try await weather(at: "/weather?city=shanghai", into: model)
        #expect(changes.names == ["phase", "phase", "value"])
        #expect(model.phase.value?.city == "shanghai")
        #expect(model.value?.forecast.count == 3)
        #expect(model.message == nil)
        #expect(model.fractionCompleted == nil)  // progress was not asked for
        #expect(model.canReload)
    }

    @Test("Loading, then failed with the catalog's message for the status")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func failsWithStatusMessage() async throws {
        let model = RequestModel<Weather>()
        let changes = try await weather(at: "/status/404", into: model)
        #expect(changes.names == ["phase", "phase", "message"])
        let error = try #require(model.phase.error)
        #expect(error.statusCode == 404)
        #expect(model.message == error.userMessage)
        #expect(model.message?.hasPrefix(MessageCatalog.current.notFound) == true)
        #expect(model.value == nil)
    }

    @Test("Through an envelope, a failure code fails the model with the server's message")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func failsWithServerMessage() async throws {
        let model = RequestModel<EmptyBody>()
        let done = EventCounter()
        let path = "/business-error?status=200&code=5001&msg=Database%20down"
        client.request(TestForm(url: try await DemoServer.url(path)))
            .bindEnvelope(to: model, envelope: APIError.envelope)  // {code, msg, data}
            .response { _ in done.increment() }
        await done.wait(for: 1)
        #expect(model.phase.error?.kind == .business)
        #expect(model.phase.error?.businessCode == "5001")
        #expect(model.message?.hasPrefix("Database down") == true)

        let ok = RequestModel<EmptyBody>()
        client.request(TestForm(url: try await DemoServer.url("/business-error?code=0&msg=fine")))
            .bindEnvelope(to: ok)
            .response { _ in done.increment() }
        await done.wait(for: 2)
        #expect(ok.phase.value != nil)
        #expect(ok.message == nil)
    }

    @Test("A burst of progress while the main actor is busy reaches the model as one change")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func progressBurstIsCoalesced() async throws {
        let text = String(repeating: "progress ", count: 400_000)  // 3.6 MB out, about twice back
        let form = TestForm(
            url: try await DemoServer.url("/echo"), method: .post, parameters: ["text": text], encoding: .json
        )
        let model = RequestModel<Echo>()
        let changes = ModelChanges(model)
        let done = EventCounter()
        let posts = Protected(0)
        let request = client.request(form)
            .bind(to: model, tracksProgress: true)
            .response { _ in done.increment() }
        request.core.addProgressObserver { _, _ in posts.withLock { $0 += 1 } }

        // Keep the main actor busy until the transfer has ended: every progress value is posted
        // meanwhile, and none can reach the model yet.
        let ended = DispatchSemaphore(value: 0)
        let core = request.core
        Task.detached {
            _ = await core.outcome()
            ended.signal()
        }
        #expect(ended.wait(timeout: .now() + 60) == .success)
        #expect(posts.withLock { $0 } >= 3)
        #expect(changes.names == ["phase"])

        await done.wait(for: 1)
        #expect(changes.names == ["phase", "fractionCompleted", "phase", "value"])
        #expect(model.fractionCompleted == 1)
        #expect(model.value?.json?["text"] == .string(text))
    }

    @Test("Progress only moves forward while loading, never more often than the transfer reports it")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func progressMovesForward() async throws {
        let model = RequestModel<Echo>()
        let changes = ModelChanges(model)
        let done = EventCounter()
        let posts = Protected(0)
        // 2 MB at 8 MB/s: about a quarter of a second of transfer. The body is not JSON, so the
        // request then fails as unreadable.
        let url = try await DemoServer.url("/files/2000000?rate=8000000")
        let request = client.request(TestForm(url: url))
            .bind(to: model, tracksProgress: true)
            .response { _ in done.increment() }
        request.core.addProgressObserver { _, _ in posts.withLock { $0 += 1 } }
        await done.wait(for: 1)
        let values = changes.fractions.compactMap { $0 }
        #expect(!values.isEmpty)
        #expect(values == values.sorted())
        #expect(values.allSatisfy { (0...1).contains($0) })
        #expect(values.last == 1)
        let progressChanges = changes.names.filter { $0 == "fractionCompleted" }.count
        #expect(progressChanges <= posts.withLock { $0 })
        #expect(model.phase.error?.kind == .invalidJSON)
        #expect(model.message?.hasPrefix(MessageCatalog.current.unreadableResponse) == true)
    }

    @Test("An upload reports the bytes it sent, up to the whole body")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func uploadProgress() async throws {
        struct Uploaded: Decodable, Sendable {
            let bytes: Int
        }
        struct PhotoForm: UploadDataFormable {
            let url: String
            let data: Data
        }
        let model = RequestModel<Uploaded>()
        let changes = ModelChanges(model)
        let done = EventCounter()
        let body = Data(repeating: 7, count: 3_000_000)
        client.upload(PhotoForm(url: try await DemoServer.url("/upload"), data: body))
            .bind(to: model, tracksProgress: true)
            .response { _ in done.increment() }
        await done.wait(for: 1)
        #expect(model.value?.bytes == body.count)
        #expect(model.fractionCompleted == 1)
        let values = changes.fractions.compactMap { $0 }
        #expect(!values.isEmpty && values == values.sorted())
    }

    @Test("reload() after a network failure re-sends the form and succeeds; handlers run again")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func retryAfterFailure() async throws {
        let key = UUID().uuidString
        let model = RequestModel<FlakyData>()
        let changes = ModelChanges(model)
        let handled = EventCounter()
        #expect(!model.canReload)
        client.request(TestForm(url: try await DemoServer.url("/flaky?key=\(key)")))
            .bind(to: model, atKeyPath: "data")
            .response { _ in handled.increment() }
        await handled.wait(for: 1)
        let error = try #require(model.phase.error)
        #expect(error.isNetworkFailure)
        #expect(model.message == error.userMessage)
        #expect(model.canReload)

        _ = try await client.request(TestForm(url: try await DemoServer.url("/flaky/recover?key=\(key)")))
            .data()
        model.reload()
        #expect(model.phase.isLoading)
        #expect(model.message == nil)
        #expect(!model.canReload)
        model.reload()  // ignored while loading
        await handled.wait(for: 2)
        #expect(model.value?.attempt != nil)
        #expect(model.phase.value != nil)
        #expect(changes.names == ["phase", "phase", "message", "phase", "message", "phase", "value"])
    }

    @Test("The latest request wins: an earlier one that ends later does not change the model")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func latestRequestWins() async throws {
        let model = RequestModel<Slept>()
        let first = EventCounter()
        let second = EventCounter()
        client.request(TestForm(url: try await DemoServer.url("/slow?ms=600"))).bind(to: model)
            .response { _ in first.increment() }
        client.request(TestForm(url: try await DemoServer.url("/slow?ms=0"))).bind(to: model)
            .response { _ in second.increment() }
        await second.wait(for: 1)
        await first.wait(for: 1)
        #expect(model.value == Slept(sleptMs: 0))
        #expect(model.phase.value == Slept(sleptMs: 0))
    }

    @Test("A cancelled request leaves the model idle with no message")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func cancelIsSilent() async throws {
        let model = RequestModel<Slept>()
        let changes = ModelChanges(model)
        let done = EventCounter()
        let request = client.request(TestForm(url: try await DemoServer.url("/slow?ms=60000")))
            .bind(to: model)
            .response { _ in done.increment() }
        await request.waitUntilRunning()
        request.cancel()
        await done.wait(for: 1)
        #expect(changes.names == ["phase", "phase"])
        #expect(!model.phase.isLoading && model.phase.error == nil && model.phase.value == nil)
        #expect(model.message == nil)
        #expect(!model.canReload)
        model.reload()  // a cancel is final
        #expect(!model.phase.isLoading)
        #expect(changes.names == ["phase", "phase"])
    }

    @Test("The model never retains its owner, and a retry works after the owner is gone")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func doesNotRetainOwner() async throws {
        var screen: WeatherScreen? = WeatherScreen(url: try await DemoServer.url("/weather?city=paris"))
        weak let weakScreen = screen
        var model: RequestModel<Weather>? = screen?.weather
        let handled = EventCounter()
        screen?.refresh().response { _ in handled.increment() }
        await handled.wait(for: 1)
        #expect(model?.value?.city == "paris")

        screen = nil
        #expect(weakScreen == nil)
        model?.reload()
        await handled.wait(for: 2)
        #expect(model?.phase.value?.city == "paris")

        weak let weakModel = model
        model = nil
        #expect(weakModel == nil)  // no cycle through the request's chain either
    }
}
