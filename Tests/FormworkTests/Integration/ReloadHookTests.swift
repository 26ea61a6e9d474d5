import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Reload hook against the demo server", .timeLimit(.minutes(5)))
@MainActor
struct ReloadHookTests {
    let client = Client()

    /// A fresh `/flaky` key: every request fails at the transport level until ``recover()``.
    private struct Flaky {
        let key = UUID().uuidString

        func form() async throws -> TestForm {
            TestForm(url: try await DemoServer.url("/flaky?key=\(key)"))
        }

        /// Brings the server back for this key; returns how many requests it saw while down.
        func recover() async throws -> Int {
            let form = TestForm(url: try await DemoServer.url("/flaky/recover?key=\(key)"))
            return try await Client().request(form).decode(Recovered.self).requests
        }
    }

    private struct Recovered: Decodable, Sendable {
        let requests: Int
    }

    private struct FlakyData: Decodable, Sendable {
        let attempt: Int
    }

    @Test("After a network failure a reload prompt appears; reloading succeeds and every hook runs again")
    func reloadSucceeds() async throws {
        let screen = Screen()
        let log = EventLog()
        let alert = Headless.Alert()
        let info = Headless.Alert(message: "Loaded")
        let handled = EventCounter()
        let flaky = Flaky()
        let request = client.request(try await flaky.form())
            .load(RecordingLoad(name: "load", log: log, container: screen))
            .warn(WeatherError.self, with: alert, onSuccess: { log.record("onSuccess \($0.code ?? "")") })
            .inform(WeatherError.self, with: info)
            .reload(on: screen)
            .responseDecodable(of: FlakyData.self, atKeyPath: "data") { response in
                log.record(response.value.map { _ in "value" } ?? "error \(response.error?.kind.name ?? "")")
                handled.increment()
            }

        await handled.wait(for: 1)
        #expect(log.events == ["load.begin", "load.end", "error transport"])
        #expect(alert.presentedMessages.count == 1)
        #expect(info.presentedMessages.isEmpty)
        #expect(screen.view.masks.count == 1)
        let prompt = try #require(screen.view.masks.first as? Headless.ReloadView)
        #expect(!prompt.isHidden)

        #expect(try await flaky.recover() >= 1)
        prompt.reload()
        #expect(screen.view.masks.isEmpty)
        #expect(prompt.superview == nil)
        await handled.wait(for: 2)
        #expect(
            log.events == [
                "load.begin", "load.end", "error transport",
                "load.begin", "load.end", "onSuccess 200", "value",
            ])
        #expect(alert.presentedMessages.count == 1)
        #expect(info.presentedMessages == ["Loaded"])
        #expect(screen.view.masks.isEmpty)
        #expect(request.isFinished)

        prompt.reload()  // a used prompt does nothing
        #expect(request.core.lifecycleState == .finished)
    }

    @Test("While the network stays down, each failed attempt offers a new prompt")
    func reloadFailsAgain() async throws {
        let view = Headless.View()
        let alert = Headless.Alert()
        let handled = EventCounter()
        let results = Recorder<Bool>()
        let flaky = Flaky()
        client.request(try await flaky.form())
            .load(LoadType.default(container: view))
            .warn(WeatherError.self, with: alert)
            .reload(on: view)
            .responseDecodable(of: FlakyData.self, atKeyPath: "data") { response in
                results.record(response.value != nil)
                handled.increment()
            }
        for round in 1...2 {
            await handled.wait(for: round)
            #expect(view.masks.count == 1)
            let prompt = try #require(view.masks.first as? Headless.ReloadView)
            if round == 2 { _ = try await flaky.recover() }
            prompt.reload()
            #expect(view.masks.isEmpty)
        }
        await handled.wait(for: 3)
        #expect(results.values == [false, false, true])
        #expect(alert.presentedMessages.count == 2)
        #expect(view.masks.isEmpty)
    }

    @Test(
        "Status errors, business errors and cancels offer no reload",
        arguments: ["/status/503", "/business-error?status=500", "/weather?city=atlantis", "cancel"])
    func noReload(path: String) async throws {
        let view = Headless.View()
        let done = EventCounter()
        let url = try await DemoServer.url(path == "cancel" ? "/slow?ms=60000" : path)
        let request = client.request(TestForm(url: url)).reload(on: view).response { _ in done.increment() }
        if path == "cancel" {
            await request.waitUntilRunning()
            request.cancel()
        }
        await done.wait(for: 1)
        #expect(view.masks.isEmpty)
    }

    @Test("A timeout offers a reload like any other network failure")
    func timeout() async throws {
        let view = Headless.View()
        let done = EventCounter()
        let form = TestForm(url: try await DemoServer.url("/slow?ms=10000"), idleTimeout: 1)
        client.request(form).reload(on: view).response { _ in done.increment() }
        await done.wait(for: 1)
        #expect(view.masks.first is Headless.ReloadView)
    }
}
