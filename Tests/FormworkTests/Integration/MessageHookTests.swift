import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Warn and inform against the demo server", .timeLimit(.minutes(5)))
@MainActor
struct MessageHookTests {
    let client = Client()
    let words = MessageCatalog.current

    /// What one request showed: the alert's messages, the success codes, the info messages.
    struct Shown {
        var warnings: [String]
        var successes: [String?]
        var informed: [String]
    }

    /// Sends `path` with `.warn(E.self, ...)` and `.inform(E.self, ...)` and waits until both ran.
    private func send<E: JSONErrorable>(_ path: String, _ type: E.Type, cancel: Bool = false) async throws
        -> Shown
    {
        try await send(TestForm(url: try await DemoServer.url(path)), type, cancel: cancel)
    }

    private func send<E: JSONErrorable>(_ form: TestForm, _ type: E.Type, cancel: Bool = false) async throws
        -> Shown
    {
        let alert = Headless.Alert()
        let info = Headless.Alert(message: "Done")
        let successes = Recorder<String?>()
        let done = EventCounter()
        let request = client.request(form)
            .warn(type, with: alert, onSuccess: { successes.record($0.code) })
            .inform(type, with: info)
            .response { _ in done.increment() }
        if cancel {
            await request.waitUntilRunning()
            request.cancel()
        }
        await done.wait(for: 1)
        return Shown(
            warnings: alert.presentedMessages, successes: successes.values, informed: info.presentedMessages)
    }

    @Test("No network: a short message, no success, no inform")
    func transport() async throws {
        let form = TestForm(url: "http://127.0.0.1:\(try UnusedPort.find())/nothing")
        let shown = try await send(form, WeatherError.self)
        #expect(shown.warnings.count == 1)
        #expect(shown.warnings.first?.hasPrefix(words.cannotConnect) == true)
        #expect(shown.successes.isEmpty)
        #expect(shown.informed.isEmpty)
    }

    @Test("An error status with a readable failure code shows the server's message, 4xx and 5xx")
    func statusWithCode() async throws {
        // 400 {"data":{"code":"400","message":"Missing city"}}
        let missing = try await send("/weather", WeatherError.self)
        #expect(missing.warnings == ["Missing city"])
        #expect(missing.informed.isEmpty)
        // 500 {"code":5001,"msg":"Database down","data":null}
        let down = try await send("/business-error?status=500&code=5001&msg=Database%20down", APIError.self)
        #expect(down.warnings == ["Database down"])
        #expect(down.successes.isEmpty)
        #expect(down.informed.isEmpty)
    }

    @Test(
        "An error status without a readable code shows the status message",
        arguments: [(404, Words.notFound), (500, .serverError), (503, .serverError)])
    func statusWithoutCode(status: Int, expected: Words) async throws {
        let shown = try await send("/status/\(status)", WeatherError.self)
        #expect(shown.warnings.count == 1)
        #expect(shown.warnings.first?.hasPrefix(expected.text(in: words)) == true)
        #expect(shown.informed.isEmpty)
        let text = try await send("/text-error?status=\(status)", APIError.self)
        #expect(text.warnings.first?.hasPrefix(expected.text(in: words)) == true)
    }

    @Test("A business code with a 200 shows the server's message, string or number")
    func businessWith200() async throws {
        #expect(try await send("/weather?city=atlantis", WeatherError.self).warnings == ["City not found"])
        let numeric = try await send("/business-error?code=1001", APIError.self)
        #expect(numeric.warnings == ["Insufficient balance"])
        #expect(numeric.successes.isEmpty)
        #expect(numeric.informed.isEmpty)
    }

    @Test("A success code calls onSuccess and informs, and warns of nothing")
    func success() async throws {
        let weather = try await send("/weather?city=shanghai", WeatherError.self)
        #expect(weather.warnings.isEmpty)
        #expect(weather.successes == ["200"])
        #expect(weather.informed == ["Done"])
        let articles = try await send("/articles", APIError.self)  // "code": 0, a JSON number
        #expect(articles.successes == ["0"])
        #expect(articles.informed == ["Done"])
    }

    @Test(
        "A 2xx body that cannot be read at the key paths says so",
        arguments: ["/json/invalid", "/html", "/json/array"])
    func unreadable(path: String) async throws {
        let shown = try await send(path, WeatherError.self)
        #expect(shown.warnings.count == 1)
        #expect(shown.warnings.first?.hasPrefix(words.unreadableResponse) == true)
        #expect(shown.successes.isEmpty)
        #expect(shown.informed.isEmpty)
    }

    @Test("A cancelled request shows nothing at all")
    func cancelled() async throws {
        let shown = try await send("/slow?ms=60000", WeatherError.self, cancel: true)
        #expect(shown.warnings.isEmpty)
        #expect(shown.successes.isEmpty)
        #expect(shown.informed.isEmpty)
    }
}
