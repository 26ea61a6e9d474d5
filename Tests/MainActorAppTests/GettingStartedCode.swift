// The DocC article GettingStarted.md, verbatim: each region between `// snippet: NAME` and
// `// snippet end` is the Swift block marked `<!-- snippet: NAME -->` there (its form and model
// are the README's `weather` region, in ReadmeQuickStart.swift); DocsInSyncTests compares them.

import Formwork

// snippet: getting-started-screen
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
// snippet end

// snippet: getting-started-panel
nonisolated struct WeatherError: JSONErrorable {
    static let envelope = Envelope(
        codePath: "data.code", messagePath: "data.message",
        successCodes: ["200"])  // a JSON 200 and "200" both match
    let code: String?
    let message: String?
}

@MainActor
final class WeatherPanel: Requestable {
    let view = Headless.View()  // stands in for your root view
    let alert = Headless.Alert()  // stands in for your alert presenter
    var weather: Weather?

    func refresh() {
        request(WeatherForm(city: "shanghai"))
            .load(LoadType.default(container: view))
            .warn(WeatherError.self, with: alert)
            .reload(on: view)
            .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                self.weather = response.value
            }
    }
}
// snippet end

// snippet: getting-started-service
struct WeatherService: Requestable {
    func weather(in city: String) async throws(NetworkError) -> Weather {
        try await request(WeatherForm(city: city)).decode(Weather.self, atKeyPath: "data")
    }
}
// snippet end

// snippet: getting-started-typed
struct CityWeatherForm: TypedFormable {
    typealias Response = Weather
    let city: String
    var url: String { "https://api.example.com/weather" }
    var parameters: Parameters { ["city": city] }
    var keyPath: String? { "data" }
}

struct WeatherClient: Requestable {
    func current(in city: String) async -> String {
        do {
            let weather = try await send(CityWeatherForm(city: city))
            return "\(weather.city): \(weather.temperature)°"
        } catch {
            return error.userMessage  // error is a NetworkError
        }
    }
}
// snippet end

// snippet: getting-started-errors
func describe(_ error: NetworkError) -> String {
    if error.isCancelled { return "" }
    if error.kind == .unacceptableStatusCode, let status = error.statusCode {
        return "HTTP \(status): \(error.userMessage)"
    }
    return error.userMessage  // e.g. "The request timed out. (-1001)" in DEBUG builds
}
// snippet end

// snippet: getting-started-one-off
extension Session {
    static let api = Session { $0.baseURL = "https://api.example.com/v1/" }
}

struct FirstLook: Requestable {
    func weather() async throws(NetworkError) -> Weather {
        try await request("weather", parameters: ["city": "shanghai"], session: .api)
            .decode(Weather.self, atKeyPath: "data")
    }

    func sendFeedback(_ text: String) {
        request("feedback", method: .post, parameters: ["text": text], encoding: .json, session: .api)
    }
}
// snippet end
