import Formwork
import Foundation
import Testing

// ReloadAndRetry.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Reload and retry")
    struct ReloadAndRetryTests {
        @MainActor
        final class ForecastScreen: Requestable, Containable, Reloadable {
            let view = Headless.View()
            let alert = Headless.Alert()
            var weather: Weather?
            var session = Session.default  // added for the test

            func containerView() -> (any MaskHost)? { view }
            func reloadContainer() -> (any Containable)? { self }  // the prompt goes on the root view too

            @discardableResult
            func viewDidLoad() -> DataRequest {
                request(WeatherForm(city: "shanghai"), session: session)
                    .load(LoadType.default(container: self))
                    .warn(WeatherError.self, with: alert)
                    .reload(on: self)
                    .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                        self.weather = response.value  // runs again for every reload
                    }
            }
        }

        static let intranet = Session {
            $0.credentials.server = PasswordCredential(user: "ada", password: "lovelace")
        }

        @Test("Authentication challenges: the session's credential is set")
        func challengeSnippet() {
            #expect(Self.intranet.configuration.credentials.server?.user == "ada")
        }

        static let onceOnMaintenance = Retrier { context in
            guard context.retryCount == 0, context.error.statusCode == 503 else { return .doNotRetry }
            return .retry(after: 5)
        }

        static let signedAPI = Session { configuration in
            configuration.interceptors.adapters = [
                SigningAdapter(secret: "s3cret"),
                Adapter { request in
                    var request = request
                    request.headers["X-App-Version"] = "2.4.0"
                    return request
                },
            ]
        }

        struct OAuthToken: AuthenticationCredential, Decodable {
            let accessToken: String
            let refreshToken: String
            var requiresRefresh: Bool { false }  // true when you know it expired: refresh before sending
        }

        struct RefreshTokenForm: RequestFormable {
            let refreshToken: String
            var url: String { "https://api.example.com/oauth/token" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["grant_type": "refresh_token", "refresh_token": refreshToken] }
        }

        struct TokenRefresher: Authenticator {
            var session = Session.default  // not the authenticated session: a refresh must not wait on itself

            func apply(_ credential: OAuthToken, to request: inout OutgoingRequest) {
                request.headers["Authorization"] = "Bearer \(credential.accessToken)"
            }

            func refresh(_ credential: OAuthToken) async throws -> OAuthToken {
                try await session.request(RefreshTokenForm(refreshToken: credential.refreshToken))
                    .decode(OAuthToken.self, atKeyPath: "data")
            }

            func isRequest(_ request: URLRequest, authenticatedWith credential: OAuthToken) -> Bool {
                request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
            }
        }

        struct Profile: Decodable, Sendable {
            let name: String
        }

        @Test("Reload: a network failure offers a prompt; reloading runs every hook again")
        @MainActor
        func reload() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/weather",
                [.failure(.notConnectedToInternet), .json(weatherJSON)])
            let forecast = ForecastScreen()
            forecast.session = Session(stubs: stubs)
            var ends = forecast.viewDidLoad().attemptEnds().makeAsyncIterator()
            await ends.next()  // the first attempt failed: the prompt is up
            #expect(forecast.alert.presentedMessages.count == 1)
            #expect(forecast.weather == nil)
            let prompt = try #require(forecast.view.masks.compactMap { $0 as? Headless.ReloadView }.first)
            prompt.reload()  // what a tap does
            await ends.next()  // the reloaded attempt ended
            #expect(forecast.weather?.city == "shanghai")
            #expect(forecast.view.masks.isEmpty)
            #expect(stubs.requests.count == 2)
        }

        @Test("Retry: a policy retries a 503, a closure retrier decides, adapters sign")
        func retry() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/articles",
                [.text("busy", statusCode: 503), .json(articlesJSON)])
            let caller = Caller()
            let page = try await caller.request(ArticlesForm(), session: Session(stubs: stubs))
                .retry(.exponential(retryLimit: 4, baseDelay: 0.01))
                .decode(Article.self, atKeyPath: "data.list.1")
            #expect(page.title == "Hooks")
            #expect(stubs.requests.count == 2)

            let status = try #require(
                HTTPURLResponse(
                    url: URL(string: "https://api.example.com/articles")!, statusCode: 503, httpVersion: nil,
                    headerFields: nil))
            let busy = NetworkError(.unacceptableStatusCode, failureReason: "503", response: status)
            let first = RetryContext(request: nil, response: status, error: busy, retryCount: 0)
            #expect(await Self.onceOnMaintenance.decide(first) == .retry(after: 5))
            let second = RetryContext(request: nil, response: status, error: busy, retryCount: 1)
            #expect(await Self.onceOnMaintenance.decide(second) == .doNotRetry)
            let patient = Session {
                $0.interceptors.retriers = [RetryPolicy(retryLimit: 3, maximumDelay: 10)]
            }
            #expect((patient.configuration.interceptors.retriers.first as? RetryPolicy)?.retryLimit == 3)

            let unsigned = URLRequest(url: URL(string: "https://api.example.com/articles?size=20&page=1")!)
            var signed = OutgoingRequest(unsigned)
            for adapter in Self.signedAPI.configuration.interceptors.adapters {
                signed = try await adapter.adapt(signed)
            }
            #expect(signed.url?.query?.hasPrefix("page=1&size=20&sign=") == true)
            #expect(signed.headers["X-App-Version"] == "2.4.0")
        }

        @Test("Authentication: concurrent 401s share one refresh, then replay with the new token")
        func authentication() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .post, "https://api.example.com/oauth/token",
                .json(#"{"data": {"accessToken": "fresh", "refreshToken": "r2"}}"#, delay: 0.1))
            stubs.stub(
                where: { $0.url?.path == "/me" },
                respond: { request in
                    request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
                        ? .json(#"{"name": "Ada"}"#)
                        : .json(#"{"error": "expired"}"#, statusCode: 401)
                })
            let stored = OAuthToken(accessToken: "old", refreshToken: "r1")
            let auth = AuthenticationInterceptor(
                authenticator: TokenRefresher(session: Session(stubs: stubs)), credential: stored)
            var configuration = Session.Configuration()
            configuration.interceptors.adapters = [auth]
            // refresh on 401, else back off
            configuration.interceptors.retriers = [auth, RetryPolicy.default]
            let account = Session(stubs: stubs, configuration: configuration)

            struct MeForm: RequestFormable {
                var url: String { "https://api.example.com/me" }
            }
            let caller = Caller()
            async let first = caller.request(MeForm(), session: account).decode(Profile.self)
            async let second = caller.request(MeForm(), session: account).decode(Profile.self)
            async let third = caller.request(MeForm(), session: account).decode(Profile.self)
            let names = try await [first, second, third].map(\.name)
            #expect(names == ["Ada", "Ada", "Ada"])
            #expect(await auth.refreshCount == 1)
            #expect(await auth.credential?.accessToken == "fresh")
        }

        struct CreateOrderForm: RequestFormable {
            let items: [String]
            var url: String { "https://api.example.com/orders" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["items": items] }
        }

        @Test("At most once: a POST with an Idempotency-Key is retried with the same key")
        func idempotencyKey() async throws {
            let stubs = StubRegistry()
            stubs.stub(.post, "https://api.example.com/orders", [.json("{}", statusCode: 503), .json("{}")])
            let cart = ["book"]
            let caller = Caller()
            let request = caller.request(CreateOrderForm(items: cart), session: Session(stubs: stubs))
                .idempotencyKey()  // one new UUID for this order
                .retry(RetryPolicy(baseDelay: 0))  // the article: .retry(.default)
            let response = await request.response()
            #expect(response.error == nil)
            #expect(response.request?.value(forHTTPHeaderField: "Idempotency-Key") != nil)
        }

        @Test("Deadline: a request that outlives its deadline fails as a timeout")
        func deadline() async {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/articles", .json("{}", delay: 30))
            let started = Date()
            let response = await Caller().request(ArticlesForm(), session: Session(stubs: stubs))
                .totalTimeout(0.3).response()
            #expect(response.error?.isTimeout == true)
            // Before the stub's own answer at 30 s (no tighter bound: a busy machine under TSan
            // took 12 s to run this).
            #expect(Date().timeIntervalSince(started) < 30)
            let bounded = Session { $0.timeouts.total = 60 }
            #expect(bounded.configuration.timeouts.total == 60)
        }
    }
}
