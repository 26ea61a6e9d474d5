import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A warnable that counts what it shows, so a test can wait for it.
@MainActor
private final class CountingAlert: Warnable {
    let shown = EventCounter()
    private(set) var messages: [String] = []

    func show(error: (any Errorable)?) {
        messages.append(error?.message ?? "")
        shown.increment()
    }
}

/// A screen whose reload prompt is counted when offered.
@MainActor
private final class CountingScreen: Containable, Reloadable {
    let view = Headless.View()
    let offered = EventCounter()
    func containerView() -> (any MaskHost)? { view }
    func reloadContainer() -> (any Containable)? { self }
    func reloadMask() -> (any ReloadMask)? {
        offered.increment()
        return Headless.ReloadView()
    }
}

@Suite("Stream hooks against the demo server", .timeLimit(.minutes(2)))
@MainActor
struct StreamHookTests {
    let client = Client()

    @Test("load shows from the start until the first event, while the stream goes on")
    func loadUntilFirstEvent() async throws {
        let key = streamKey()
        let view = Headless.View()
        let ended = EventCounter()
        let request = client.stream(
            TestForm(url: try await DemoServer.url("/sse?key=\(key)&end=open&rate=5"))
        )
        .load(ObservedLoad(base: LoadType.default(container: view), afterEnd: { ended.increment() }))
        #expect(view.masks.count == 1)
        var events = 0
        for try await _ in request.events() {
            events += 1
            await ended.wait(for: 1)
            #expect(view.masks.isEmpty)
            #expect(!request.isFinished)
            break
        }
        #expect(events == 1)
        #expect(ended.value == 1)
    }

    @Test("warn shows the failure of a stream that cannot be read")
    func warnOnFailure() async throws {
        let alert = CountingAlert()
        let url = try await DemoServer.url("/sse?type=text/plain")
        let request = client.stream(TestForm(url: url)).warn(WeatherError.self, with: alert)
        await #expect(throws: NetworkError.self) {
            for try await _ in request.events() {}
        }
        await alert.shown.wait(for: 1)
        #expect(alert.messages.count == 1)
        #expect(alert.messages.first?.isEmpty == false)
    }

    @Test("reload offers a prompt after a dropped stream and connects again when triggered")
    func reloadReconnects() async throws {
        let key = streamKey()
        let screen = CountingScreen()
        // Read as lines, the stream does not reconnect by itself: a drop is a network failure.
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&end=drop")
        let request = client.stream(TestForm(url: url)).reload(on: screen)
        var firstRun: [String] = []
        await #expect {
            for try await line in request.lines() { firstRun.append(line) }
        } throws: { error in
            (error as? NetworkError)?.isNetworkFailure == true
        }
        #expect(firstRun.prefix(2) == ["id: 00000001", "data: event 00000001"])
        await screen.offered.wait(for: 1)
        let prompt = try #require(screen.view.masks.first as? Headless.ReloadView)
        prompt.reload()
        #expect(screen.view.masks.isEmpty)
        var secondRun: [String] = []
        await #expect(throws: NetworkError.self) {
            for try await line in request.lines() { secondRun.append(line) }
        }
        #expect(secondRun.prefix(2) == ["id: 00000001", "data: event 00000001"])
        #expect(try await streamStats(key).connections == 2)
    }
}
