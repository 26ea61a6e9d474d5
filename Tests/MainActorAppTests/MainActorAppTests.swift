import Formwork
import FormworkTestSupport
import Foundation
import Testing

// The docs' code (ReadmeQuickStart.swift, GettingStartedCode.swift) run against the real demo
// server. This module is compiled as a new Xcode app target is (Package.swift: default main-actor
// isolation, NonisolatedNonsendingByDefault, InferIsolatedConformances), so everything here is on
// the main actor unless it says otherwise. The docs' URLs stay `https://api.example.com/…`: the
// test session's adapter sends them to the demo server. (The screens and services that use
// `Session.default` are compiled, not run: their requests would leave the machine.)

/// Sends the docs' `https://api.example.com` requests to the demo server instead.
nonisolated struct DemoHost: RequestAdapter {
    let base: URL

    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        guard let url = request.url, url.host == "api.example.com",
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return request }
        components.scheme = base.scheme
        components.host = base.host
        components.port = base.port
        var adapted = request
        adapted.url = components.url
        return adapted
    }
}

/// Anything can be `Requestable`; the tests send from this.
struct Caller: Requestable {}

/// A form of this module for a status the docs' forms never get.
struct ServerErrorForm: RequestFormable {
    var url: String { "https://api.example.com/status/500" }
}

extension Session {
    /// A session whose requests to the docs' host reach the demo server.
    static func demo() async throws -> Session {
        let base = try #require(URL(string: try await DemoServer.baseURL()))
        return Session { $0.interceptors.adapters = [DemoHost(base: base)] }
    }
}

extension DataRequest {
    /// Returns once every hook and handler chained before this call has run.
    func settled() async {
        await withCheckedContinuation { continuation in
            response { _ in continuation.resume() }
        }
    }
}

@Suite("Docs' code in a main-actor app module, against the demo server", .timeLimit(.minutes(5)))
struct MainActorAppTests {
    @Test("the quick start's form, model and shared headers fetch the weather")
    func weather() async throws {
        let request = Caller().request(WeatherForm(city: "shanghai"), session: try await Session.demo())
        let weather = try await request.decode(Weather.self, atKeyPath: "data")
        #expect(weather.city == "shanghai")
        #expect(weather.temperature == 23.5)  // the demo server's answer, not the docs' example
        let sent = try #require(request.request)
        #expect(sent.url?.host == "127.0.0.1")
        #expect(sent.url?.query == "city=shanghai")
        #expect(sent.value(forHTTPHeaderField: "accessToken") == Credentials.token)
    }

    @Test("the quick start's handler chain decodes on the main actor")
    func handlers() async throws {
        let session = try await Session.demo()
        let weather: Weather? = await withCheckedContinuation { continuation in
            Caller().request(WeatherForm(city: "tokyo"), session: session)
                .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                    continuation.resume(returning: response.value)
                }
        }
        #expect(weather?.city == "tokyo")
    }

    @Test("send returns the quick start's articles and the typed weather")
    func send() async throws {
        let session = try await Session.demo()
        let articles = try await Caller().send(ArticlesForm(), session: session)
        #expect(articles.count == 10)
        #expect(articles.first?.id == 1)
        #expect(articles.first?.title == "Article 1")
        let weather = try await Caller().send(CityWeatherForm(city: "paris"), session: session)
        #expect(weather.city == "paris")
    }

    @Test("Getting started's error type shows the server's message through .warn")
    func warn() async throws {
        let alert = Headless.Alert()
        let request = Caller().request(WeatherForm(city: "atlantis"), session: try await Session.demo())
            .warn(WeatherError.self, with: alert)
        await request.settled()
        #expect(alert.presentedMessages == ["City not found"])
    }

    @Test("Getting started's describe(_:) reads a real 500")
    func describeServerError() async throws {
        let response = await Caller().request(ServerErrorForm(), session: try await Session.demo()).response()
        let error = try #require(response.error)
        #expect(error.statusCode == 500)
        #expect(describe(error).hasPrefix("HTTP 500: "))
    }
}
