import Formwork
import Foundation
import Testing

// TestingWithStubs.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Testing with stubs")
    struct TestingWithStubsTests {
        @MainActor
        final class WeatherViewModel: Requestable {
            let session: Session
            let view = Headless.View()
            let alert = Headless.Alert()
            private(set) var weather: Weather?

            init(session: Session = .default) {
                self.session = session
            }

            @discardableResult
            func refresh(city: String) -> DataRequest {
                request(WeatherForm(city: city), session: session)
                    .load(LoadType.default(container: view))
                    .warn(WeatherError.self, with: alert)
                    .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                        self.weather = response.value
                    }
            }
        }

        @Suite struct WeatherViewModelTests {
            @Test @MainActor func showsTheServersMessage() async {
                let stubs = StubRegistry()
                stubs.stub(
                    .get, "https://api.example.com/weather",
                    .json(#"{"data": {"code": "404", "message": "City not found"}}"#))
                let model = WeatherViewModel(session: Session(stubs: stubs))

                let request = model.refresh(city: "atlantis")
                #expect(model.view.masks.count == 1)  // the mask is on while the request runs
                await request.settled()
                #expect(model.view.masks.isEmpty)
                #expect(model.alert.presentedMessages == ["City not found"])
                #expect(stubs.requests.first?.url?.query == "city=atlantis")
            }
        }

        @Test("Testing with stubs: matching, sequences, dynamic answers and a reload")
        @MainActor
        func stubbing() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/weather",
                .json(#"{"data": {"code": "200", "message": "OK", "city": "rome", "temperature": 21.5}}"#))
            let session = Session(stubs: stubs)

            let weather = try await session.request(WeatherForm(city: "rome")).decode(
                Weather.self, atKeyPath: "data")
            #expect(weather.city == "rome")
            #expect(stubs.requests.first?.url?.query == "city=rome")

            stubs.stub(
                .get, "https://api.example.com/articles",
                .json(#"{"code": 0, "msg": "ok", "data": {"list": []}}"#))
            stubs.stub(
                .post, "https://api.example.com/pay",
                .json(#"{"code": 1001, "msg": "Insufficient balance"}"#))
            stubs.stub(nil, "https://api.example.com/down", .text("maintenance", statusCode: 503))
            stubs.stub(.get, "https://api.example.com/slow", .json("{}", delay: 2))  // answers after 2 s
            stubs.stub(.get, "https://api.example.com/offline", .failure(.notConnectedToInternet))
            stubs.stub(
                .get, "https://api.example.com/flaky",
                [.failure(.timedOut), .text("busy", statusCode: 503), .json("{}")])
            stubs.stub(
                where: { $0.url?.path == "/me" },
                respond: { request in
                    request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
                        ? .json(#"{"name": "Ada"}"#)
                        : .json(#"{"error": "expired"}"#, statusCode: 401)
                })

            struct PathForm: RequestFormable {
                let path: String
                var url: String { "https://api.example.com" + path }
            }
            let caller = Caller()
            #expect(
                await caller.request(PathForm(path: "/down"), session: session).response().error?.statusCode
                    == 503)
            let offline = await caller.request(PathForm(path: "/offline"), session: session).response()
            #expect(offline.error?.urlErrorCode == .notConnectedToInternet)
            #expect(offline.error?.isNetworkFailure == true)
            #expect(
                await caller.request(PathForm(path: "/me"), session: session).response().error?.statusCode
                    == 401)
            let flaky = await caller.request(PathForm(path: "/flaky"), session: session)
                .retry(.exponential(retryLimit: 2, baseDelay: 0.01)).response()
            #expect(flaky.error == nil)
            let unmatched = await caller.request(PathForm(path: "/nowhere"), session: session).response()
            #expect(unmatched.error?.urlErrorCode == .resourceUnavailable)

            let reloading = StubRegistry()
            let reloadSession = Session(stubs: reloading)
            reloading.stub(
                .get, "https://api.example.com/weather",
                [
                    .failure(.notConnectedToInternet),
                    .json(#"{"data": {"code": "200", "message": "OK", "city": "rome", "temperature": 20}}"#),
                ])
            let screen = Headless.View()
            let request = reloadSession.request(WeatherForm(city: "rome"))
                .load(LoadType.default(container: screen))
                .reload(on: screen)
            var ends = request.attemptEnds().makeAsyncIterator()
            await ends.next()  // the first attempt failed: the prompt is up
            let prompt = screen.masks.compactMap { $0 as? Headless.ReloadView }.first
            #expect(prompt != nil)
            prompt?.reload()  // a tap: the prompt goes, the same request runs again, hooks included
            await ends.next()  // the reloaded attempt ended
            #expect(screen.masks.isEmpty)
            #expect(reloading.requests.count == 2)
            #expect(request.response?.statusCode == 200)

            stubs.reset()
            #expect(stubs.requests.isEmpty)
        }
    }
}
