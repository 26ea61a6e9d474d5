import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A request lives while it runs and while something holds it, and not after: a service sending
/// thousands of requests from one session must not keep any of them (a retain cycle between the
/// engine and its transport task once kept every request, ~4-6 KiB each).
@Suite("Request lifetime against the demo server", .timeLimit(.minutes(2)))
struct RequestLifetimeTests {
    /// The transport under test is in place before any request.
    private let transport = TransportUnderTest.installed
    let client = Client()

    /// A session that shares identical requests in flight (the default) or one that does not:
    /// their tasks report to the request along different paths.
    private func session(coalescing: Bool) -> Session {
        coalescing ? .default : Session { $0.coalescesRequests = false }
    }

    /// Waits until `isReleased` holds: the last owners (the exchange's task, the handler drain)
    /// let go just after they delivered the outcome, on their own threads. Gives up after 10 s.
    private func expectReleased(
        _ what: String, isolation: isolated (any Actor)? = #isolation,
        sourceLocation: SourceLocation = #_sourceLocation, _ isReleased: () -> Bool
    ) async {
        // Generous: under TSan the whole suite has held tasks back for over 20 s.
        let deadline = Date(timeIntervalSinceNow: 60)  // `ContinuousClock` needs macOS 13 / iOS 16
        while !isReleased(), Date() < deadline {
            await Task.yield()
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(isReleased(), "\(what) is still alive", sourceLocation: sourceLocation)
    }

    @Test("An awaited request is released once its value is returned", arguments: [true, false])
    func awaitedRequestIsReleased(coalescing: Bool) async throws {
        let form = TestForm(url: try await DemoServer.url("/weather"), parameters: ["city": "shanghai"])
        weak var core: RequestCore?
        do {
            let request = client.request(form, session: session(coalescing: coalescing))
            core = request.core
            let weather = try await request.decode(Weather.self, atKeyPath: "data")
            #expect(weather.city == "shanghai")
        }
        await expectReleased("The request's engine") { core == nil }
    }

    @Test("A request with a handler chain is released after its last handler ran", arguments: [true, false])
    @MainActor
    func handlerChainIsReleased(coalescing: Bool) async throws {
        let form = TestForm(url: try await DemoServer.url("/weather"))
        let ended = EventCounter()
        weak var core: RequestCore?
        do {
            let request = client.request(form, session: session(coalescing: coalescing)).response { _ in
                ended.increment()
            }
            core = request.core
        }
        await ended.wait(for: 1)
        await expectReleased("The request's engine") { core == nil }
    }

    @Test(
        "A failed request (an error status, then a refused connection) is released", arguments: [true, false])
    func failedRequestsAreReleased(coalescing: Bool) async throws {
        let session = session(coalescing: coalescing)
        weak var failedStatus: RequestCore?
        weak var refused: RequestCore?
        do {
            let request = client.request(
                TestForm(url: try await DemoServer.url("/status/503")), session: session)
            failedStatus = request.core
            await #expect(throws: NetworkError.self) { try await request.data() }
        }
        do {
            // A port nothing listens on: the connection is refused.
            let request = client.request(TestForm(url: "http://127.0.0.1:9/refused"), session: session)
            refused = request.core
            await #expect(throws: NetworkError.self) { try await request.data() }
        }
        await expectReleased("The request that got a 503") { failedStatus == nil }
        await expectReleased("The request whose connection was refused") { refused == nil }
    }

    @Test("A request cancelled while the server holds its answer is released", arguments: [true, false])
    func cancelledRequestIsReleased(coalescing: Bool) async throws {
        let form = TestForm(url: try await DemoServer.url("/slow?ms=10000"))
        weak var core: RequestCore?
        do {
            let request = client.request(form, session: session(coalescing: coalescing))
            core = request.core
            let waiting = Task { try await request.data() }
            // Bounded, and sleeping between looks: a loop of `Task.yield()` kept the request's own
            // jobs from running under TSan (both cooperative threads spun, the test hung).
            await eventually("the request's task exists") { request.core.task != nil }
            request.cancel()
            let result = await waiting.result
            #expect(throws: NetworkError.self) { try result.get() }
        }
        await expectReleased("The cancelled request's engine") { core == nil }
    }

    @Test(
        "A request's network task is released when it ends, finished or cancelled, shared or not",
        arguments: [true, false], [false, true])
    func transportTaskIsReleased(coalescing: Bool, cancelling: Bool) async throws {
        // A shared (coalesced) task and its events once kept each other alive for good, and with
        // them the transport's own task (its URLSession task, and the URLSession).
        // The server holds the answer until the test releases it: a request that ended before the
        // test saw its task (a timer's answer on a busy machine) would leave nothing to check.
        let key = "lifetime-\(UUID().uuidString)"
        let form = TestForm(url: try await DemoServer.url("/coalesce/held?key=\(key)"))
        weak var task: (any TransportTask)?
        weak var transportTask: (any TransportTask)?
        do {
            let request = client.request(form, session: session(coalescing: coalescing))
            let waiting = Task { try await request.data() }
            await eventually("the request's task exists") { request.core.task != nil }
            task = request.core.task
            transportTask = request.core.transportTask
            if cancelling {
                request.cancel()
            } else {
                let release = TestForm(url: try await DemoServer.url("/coalesce/release?key=\(key)"))
                _ = try await client.request(release, session: session(coalescing: false)).data()
            }
            let result = await waiting.result
            #expect(cancelling == ((try? result.get()) == nil), "The request ends as it should")
        }
        await expectReleased("The request's task") { task == nil }
        await expectReleased("The transport's task under it") { transportTask == nil }
    }

    @Test("A download to a file is released once it has finished")
    func downloadIsReleased() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = try await DemoServer.url("/articles?page=1&size=50")
        let expected = try await client.request(TestForm(url: url)).data()
        let form = TestDownloadForm(url: url, destination: scratch.file("articles.json"))
        weak var core: RequestCore?
        do {
            let request = client.download(form)
            core = request.core
            let file = try await request.fileURL()
            #expect(try Data(contentsOf: file) == expected)
        }
        await expectReleased("The download's engine") { core == nil }
    }

    @Test("An upload is released once its response is read")
    func uploadIsReleased() async throws {
        let form = TestDataUpload(url: try await DemoServer.url("/echo"), data: Data("released".utf8))
        weak var core: RequestCore?
        do {
            let request = client.upload(form)
            core = request.core
            let echo = try await request.decode(Echo.self)
            #expect(echo.body == "released")
        }
        await expectReleased("The upload's engine") { core == nil }
    }

    @Test("A request retried after a burst of 503s is released with all its attempts")
    func retriedRequestIsReleased() async throws {
        let key = "k\(UUID().uuidString.prefix(12))"
        let url = try await DemoServer.url("/fault/burst?key=\(key)&failures=2&status=503")
        weak var core: RequestCore?
        do {
            let request = client.request(TestForm(url: url), session: session(coalescing: false))
                .retry(RetryPolicy(baseDelay: 0.01))
            core = request.core
            _ = try await request.data()
            #expect(request.core.lifecycleState == .finished)
        }
        await expectReleased("The retried request's engine") { core == nil }
    }

    @Test("An event stream that ended (a 204 after its reconnects) is released")
    func endedStreamIsReleased() async throws {
        let key = "s" + UUID().uuidString.prefix(8).lowercased()
        let url = try await DemoServer.url("/sse?key=\(key)&count=3&total=6&retry=10")
        weak var core: RequestCore?
        do {
            let stream = client.stream(TestForm(url: url))
            core = stream.core
            let events = try await collect(stream.events())
            #expect(events.count == 6)
        }
        await expectReleased("The stream's engine") { core == nil }
    }
}
