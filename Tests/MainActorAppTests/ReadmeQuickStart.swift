// The README's quick start, verbatim: each region between `// snippet: NAME` and `// snippet end`
// is the Swift block marked `<!-- snippet: NAME -->` in README.md (and, for `weather`, in
// GettingStarted.md too); DocsInSyncTests compares them as text. This target is built the way a
// new Xcode app target is (default main-actor isolation, approachable concurrency), so the first
// page a user reads compiles where most new apps are written.

// snippet: weather
import Formwork

struct WeatherForm: RequestFormable {
    let city: String
    var url: String { "https://api.example.com/weather" }
    var parameters: Parameters { ["city": city] }  // ?city=shanghai
}

nonisolated struct Weather: Decodable, Sendable {
    let city: String
    let temperature: Double
}
// snippet end

// snippet: readme-home-screen
@MainActor final class HomeScreen: Requestable {
    func refresh() {
        request(WeatherForm(city: "shanghai"))
            .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                switch response.result {
                case .success(let weather): print(weather.temperature)
                case .failure(let error): print(error.userMessage)  // "The server had a problem..."
                }
            }
    }
}
// snippet end

// snippet: readme-articles
nonisolated struct Article: Decodable, Sendable {
    let id: Int
    let title: String
}

struct ArticlesForm: TypedFormable {
    typealias Response = [Article]
    var url: String { "https://api.example.com/articles" }
    var parameters: Parameters { ["page": 1] }
    var keyPath: String? { "data.list" }  // {"code": 0, "msg": "ok", "data": {"list": [...]}}
}

struct ArticleService: Requestable {
    func latest() async throws -> [Article] {
        try await send(ArticlesForm())
    }
}
// snippet end

// snippet: readme-headers
extension Formable {
    var headers: HTTPHeaders { ["accessToken": Credentials.token] }
}
// snippet end

/// What the README's shared-headers extension reads (the README leaves it to the app).
enum Credentials {
    static let token = "main-actor-app-token"
}
