import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Collects events on the main actor, in the order they happened.
@MainActor
final class EventLog {
    private(set) var events: [String] = []
    func record(_ event: String) { events.append(event) }
}

@Suite("Request lifecycle against the demo server")
struct LifecycleTests {
    let client = Client()

    @Test("Handlers run exactly once, on the main actor, in the order chained")
    @MainActor
    func handlerOrder() async throws {
        let log = EventLog()
        let request = client.request(TestForm(url: try await DemoServer.url("/weather?city=x")))
        await withCheckedContinuation { continuation in
            request
                .response { _ in log.record("response") }
                .responseData { _ in log.record("data") }
                .responseString { _ in log.record("string") }
                .responseDecodable(of: Weather.self, atKeyPath: "data") { _ in log.record("decodable") }
                .response { _ in
                    log.record("last")
                    continuation.resume()
                }
        }
        #expect(log.events == ["response", "data", "string", "decodable", "last"])
    }

    @Test("Handlers chained after completion still run, once each, after the earlier ones")
    @MainActor
    func handlersAfterCompletion() async throws {
        let log = EventLog()
        let request = client.request(TestForm(url: try await DemoServer.url("/weather?city=x")))
        _ = try await request.data()
        #expect(request.isFinished)
        await withCheckedContinuation { continuation in
            request.responseString { _ in log.record("first") }
            request.responseData { _ in log.record("second") }
            request.response { _ in
                log.record("third")
                continuation.resume()
            }
        }
        // Handlers chained later again: the earlier ones must not run twice.
        await withCheckedContinuation { continuation in
            request.response { _ in
                log.record("fourth")
                continuation.resume()
            }
        }
        #expect(log.events == ["first", "second", "third", "fourth"])
    }

    @Test("Cancelling mid-flight ends the request at once with a cancelled error")
    func cancelMidFlight() async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/slow?ms=60000")))
        await request.waitUntilRunning()
        let started = Date()
        request.cancel()
        let response = await request.handledString()
        #expect(response.error?.isCancelled == true)
        #expect(response.error?.isNetworkFailure == false)
        #expect(request.isCancelled)
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the server would answer
        await #expect(throws: NetworkError.self) { try await request.data() }
    }

    @Test("Cancelling before the task exists ends the request as cancelled, without sending")
    func cancelImmediately() async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/echo"))).cancel()
        let response = await request.handledString()
        #expect(response.error?.isCancelled == true)
        #expect(request.isCancelled)
    }

    @Test("Cancelling the Swift Task that awaits a request cancels the request")
    func taskCancellation() async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/slow?ms=60000")))
        let waiter = Task { try await request.data() }
        await request.waitUntilRunning()
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: NetworkError.self) { try result.get() }
        #expect(request.isCancelled)
    }

    @Test("Cancelling the Task around send cancels its request")
    func sendCancellation() async throws {
        struct SlowForm: TypedFormable {
            typealias Response = EmptyBody
            let url: String
        }
        let url = try await DemoServer.url("/slow?ms=60000")
        let started = Date()
        let task = Task { try await Client().send(SlowForm(url: url)) }
        // Let it start; the assertion holds whether the cancel lands before or after the send.
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        let result = await task.result
        #expect {
            try result.get()
        } throws: { ($0 as? NetworkError)?.isCancelled == true }
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the server would answer
    }

    @Test("300 concurrent requests all succeed, each with its own response")
    func concurrency() async throws {
        let url = try await DemoServer.url("/echo")
        let ids = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for id in 0..<300 {
                group.addTask {
                    let echo = try await Client().request(TestForm(url: url, parameters: ["id": id])).decode(
                        Echo.self)
                    return (id, echo.queryItems["id"]?.first)
                }
            }
            var pairs: [(Int, String?)] = []
            for try await pair in group { pairs.append(pair) }
            return pairs
        }
        #expect(ids.count == 300)
        #expect(ids.allSatisfy { String($0.0) == $0.1 })
    }

    @Test("No request stays routed in the session once it finished")
    func nothingOutlives() async throws {
        let session = Session()
        let url = try await DemoServer.url("/echo")
        for _ in 0..<20 {
            _ = try await Client().request(TestForm(url: url), session: session).data()
        }
        let cancelled = Client().request(
            TestForm(url: try await DemoServer.url("/slow?ms=5000")), session: session)
        await cancelled.waitUntilRunning()
        cancelled.cancel()
        _ = await cancelled.handledString()
        #expect(session.routedTaskCount == 0)
    }
}

/// `send` must be callable from any isolation, including non-Sendable conformers and actors.
@Suite("send from any isolation")
struct SendIsolationTests {
    final class NonSendableViewModel: Requestable {
        var weather: Weather?
        func load(base: String) async throws {
            weather = try await send(WeatherForm(base: base, city: "tokyo"))
        }
    }

    actor WeatherService: Requestable {
        func load(base: String) async throws -> Weather {
            try await send(WeatherForm(base: base, city: "berlin"))
        }
    }

    @MainActor
    final class Screen: Requestable {
        var title = ""
        func load(base: String) async throws {
            title = try await send(WeatherForm(base: base, city: "rome")).city
        }
    }

    @Test("A non-Sendable class, an actor and a main-actor class can all send")
    func sendEverywhere() async throws {
        let base = try await DemoServer.baseURL()
        let model = NonSendableViewModel()
        try await model.load(base: base)
        #expect(model.weather?.city == "tokyo")
        #expect(try await WeatherService().load(base: base).city == "berlin")
        let screen = Screen()
        try await screen.load(base: base)
        #expect(await screen.title == "rome")
    }
}
