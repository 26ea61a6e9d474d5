import Formwork
import Foundation
import Testing

// Formwork.md and GettingStarted.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Getting started")
    struct GettingStartedTests {
        @MainActor
        final class WeatherScreen: Requestable {
            var weather: Weather?

            func refresh() {
                request(WeatherForm(city: "shanghai"))
                    .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                        switch response.result {
                        case .success(let weather): self.weather = weather
                        case .failure(let error): print(error.userMessage)
                        }
                    }
            }
        }

        @MainActor
        final class WeatherPanel: Requestable {
            let view = Headless.View()  // stands in for your root view
            let alert = Headless.Alert()  // stands in for your alert presenter
            var weather: Weather?
            var session = Session.default  // added for the test

            @discardableResult
            func refresh() -> DataRequest {
                request(WeatherForm(city: "shanghai"), session: session)
                    .load(LoadType.default(container: view))
                    .warn(WeatherError.self, with: alert)
                    .reload(on: view)
                    .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                        self.weather = response.value
                    }
            }
        }

        struct WeatherService: Requestable {
            var session = Session.default  // added for the test

            func weather(in city: String) async throws(NetworkError) -> Weather {
                try await request(WeatherForm(city: city), session: session).decode(
                    Weather.self, atKeyPath: "data")
            }
        }

        struct CityWeatherForm: TypedFormable {
            typealias Response = Weather
            let city: String
            var url: String { "https://api.example.com/weather" }
            var parameters: Parameters { ["city": city] }
            var keyPath: String? { "data" }
        }

        struct WeatherClient: Requestable {
            var session = Session.default  // added for the test

            func current(in city: String) async -> String {
                do {
                    let weather = try await send(CityWeatherForm(city: city), session: session)
                    return "\(weather.city): \(weather.temperature)°"
                } catch {
                    return error.userMessage  // error is a NetworkError
                }
            }
        }

        static func describe(_ error: NetworkError) -> String {
            if error.isCancelled { return "" }
            if error.kind == .unacceptableStatusCode, let status = error.statusCode {
                return "HTTP \(status): \(error.userMessage)"
            }
            return error.userMessage  // e.g. "The request timed out. (-1001)" in DEBUG builds
        }

        /// The landing page's chain.
        @MainActor
        static func landing(
            session: Session, screen: Headless.View, alert: Headless.Alert,
            show: @escaping @MainActor @Sendable (Weather?) -> Void
        ) -> DataRequest {
            Caller().request(WeatherForm(city: "shanghai"), session: session)
                .load(LoadType.default(container: screen))  // a mask while it runs
                .warn(WeatherError.self, with: alert)  // a readable message if it fails
                .reload(on: screen)  // "tap to reload" after a network failure
                .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                    show(response.value)
                }
        }

        @Test("Getting started: a form, hooks and handlers, async accessors and send")
        @MainActor
        func gettingStarted() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/weather", .json(weatherJSON))
            let session = Session(stubs: stubs)

            let panel = WeatherPanel()
            panel.session = session
            let request = panel.refresh()
            #expect(panel.view.masks.count == 1)
            await request.settled()
            #expect(panel.weather?.temperature == 21.5)
            #expect(panel.view.masks.isEmpty)
            #expect(panel.alert.presentedMessages.isEmpty)
            #expect(
                stubs.requests.first?.url?.absoluteString == "https://api.example.com/weather?city=shanghai")
            #expect(stubs.requests.first?.httpMethod == "GET")

            let weather = try await WeatherService(session: session).weather(in: "shanghai")
            #expect(weather.city == "shanghai")
            #expect(await WeatherClient(session: session).current(in: "shanghai") == "shanghai: 21.5°")

            let screen = Headless.View()
            let shown = Headless.Alert()
            let landed = Self.landing(session: session, screen: screen, alert: shown) { weather in
                shown.message = weather?.city ?? "none"
            }
            await landed.settled()
            #expect(shown.message == "shanghai")
            #expect(screen.masks.isEmpty)

            let status = try #require(
                HTTPURLResponse(
                    url: URL(string: "https://api.example.com/weather")!, statusCode: 500, httpVersion: nil,
                    headerFields: nil))
            let failure = NetworkError(.unacceptableStatusCode, failureReason: "500", response: status)
            #expect(Self.describe(failure).hasPrefix("HTTP 500: "))
            #expect(Self.describe(NetworkError(.cancelled, failureReason: "cancelled")) == "")
        }

        @Test("Getting started: a bad URL fails with invalidURL before anything is sent")
        func invalidURL() async {
            struct BrokenForm: RequestFormable {
                var url: String { "ftp://api.example.com/weather" }
            }
            let stubs = StubRegistry()
            let response = await Caller().request(BrokenForm(), session: Session(stubs: stubs)).response()
            #expect(response.error?.kind == .invalidURL)
            #expect(stubs.requests.isEmpty)
        }
    }
}
