import Formwork
import Foundation
import Testing

// Sending.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Sending")
    struct SendingTests {
        enum API {
            static let session = Session { configuration in
                configuration.headers = ["X-Client": "ios"]  // a form's own headers win on a clash
                configuration.timeouts.idle = 20  // idle timeout, seconds
                configuration.acceptableStatusCodes = 200..<300  // nil turns default validation off
                configuration.interceptors.retriers = [RetryPolicy.default]  // retry transient failures
                configuration.timeouts.total = 60  // total time per request, all attempts
            }
        }

        struct Feed: Requestable {
            func load() async throws(NetworkError) -> Data {
                try await request(ArticlesForm(), session: API.session).data()
            }
        }

        struct ArticleService: Requestable {
            var session = Session.default  // added for the test

            func firstTitle() async throws(NetworkError) -> String {
                try await request(ArticlesForm(), session: session).decode(
                    String.self, atKeyPath: "data.list.0.title")
            }

            func rawPage() async -> DataResponse<Data> {
                // never throws: the error is in .result
                await request(ArticlesForm(), session: session).response()
            }
        }

        struct MaintenanceError: Error {}

        struct ArticleStore: Requestable {
            var session = Session.default  // added for the test

            func page() async throws(NetworkError) -> [Article] {
                try await request(ArticlesForm(), session: session)
                    .decodeEnvelope([Article].self, atKeyPath: "data.list", envelope: .api)
            }
        }

        @Test("Sending: handlers, validation, key paths and envelopes")
        @MainActor
        func sending() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/articles", .json(articlesJSON))
            let session = Session(stubs: stubs)
            let caller = Caller()

            #expect(API.session.configuration.headers["x-client"] == "ios")
            #expect(API.session.configuration.timeouts.total == 60)

            let received = Lines()
            let chained = caller.request(ArticlesForm(), session: session)
                .validate(statusCode: 200..<300)
                .retry(RetryPolicy.default)
                .responseData { response in received.append("\(response.data?.count ?? 0)") }
            await chained.settled()
            #expect(received.all == ["\(articlesJSON.utf8.count)"])

            let service = ArticleService(session: session)
            #expect(try await service.firstTitle() == "Forms")
            #expect(await service.rawPage().response?.statusCode == 200)
            #expect(try await ArticleStore(session: session).page().map(\.title) == ["Forms", "Hooks"])

            let relaxed = await caller.request(ArticlesForm(), session: session)
                .validate(statusCode: 200..<500).response()
            #expect(relaxed.error == nil)

            let maintenance = StubRegistry()
            maintenance.stub(
                nil, "https://api.example.com/articles",
                StubResponse(headers: ["X-Maintenance": "1"], body: Data("{}".utf8)))
            let rejected = await caller.request(ArticlesForm(), session: Session(stubs: maintenance))
                .validate { _, response, _ in  // your own rule; throw to reject
                    if response.value(forHTTPHeaderField: "X-Maintenance") != nil {
                        throw MaintenanceError()
                    }
                }
                .response()
            #expect(rejected.error?.kind == .validationFailed)
            #expect(rejected.error?.underlyingError is MaintenanceError)

            let failing = StubRegistry()
            failing.stub(
                nil, "https://api.example.com/articles", .json(#"{"code": 1001, "msg": "No access"}"#))
            do {
                _ = try await ArticleStore(session: Session(stubs: failing)).page()
                Issue.record("A failure code must throw")
            } catch {
                #expect(error.kind == .business)
                #expect(error.businessCode == "1001")
                #expect(error.businessMessage == "No access")
                #expect(error.userMessage.hasPrefix("No access"))
            }
        }

        // "When a request starts": in code with no actor, nothing starts a request until its first
        // handler, hook or async accessor, or `resume()`.
        nonisolated static func prefetch(session: Session) -> DataRequest {
            session.request(ArticlesForm()).adapt(SigningAdapter(secret: "s3cret")).resume()
        }

        /// Calls `finished` each time a request of the session ends; hears requests, starts none.
        struct FinishSignal: EventMonitor {
            let finished: @Sendable () -> Void

            func requestDidFinish(_ metrics: RequestMetrics) { finished() }
        }

        @Test("Sending: a request made in nonisolated code runs on resume(), with nothing chained")
        func resumedInNonisolatedCode() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/articles", .json(articlesJSON))
            let (finishes, finished) = AsyncStream.makeStream(of: Void.self)
            var configuration = Session.Configuration()
            configuration.interceptors.eventMonitors = [FinishSignal { finished.yield() }]
            let session = Session(stubs: stubs, configuration: configuration)

            let prefetched = Self.prefetch(session: session)
            // Nothing is chained on the request and nothing else asks for it: only `resume()` can
            // have started it. Without that call no request ever ends, and this waits until the
            // suite's time limit fails the test.
            for await _ in finishes { break }
            let sent = try #require(stubs.requests.first)
            #expect(sent.url?.path == "/articles")
            #expect(sent.url?.query?.hasPrefix("page=1&size=20&sign=") == true)  // the adapter ran
            // The request already ended: asking for its response now sends nothing more.
            #expect(await prefetched.response().response?.statusCode == 200)
            #expect(stubs.requests.count == 1)
        }
    }
}

extension DocSnippetTests.SendingTests {
    struct ProfileForm: RequestFormable {
        var url: String { "https://api.example.com/me" }
    }

    struct PollForm: RequestFormable {
        var url: String { "https://api.example.com/inbox" }
        var coalescesRequests: Bool { false }
    }

    struct Profile: Decodable, Sendable {
        let name: String
    }

    struct ProfileLoader: Requestable {
        var session = Session.default  // added for the test

        func load() async throws -> Profile {
            // One request reaches the server; each caller decodes the body its own way.
            try await request(ProfileForm(), session: session).decode(Profile.self)
        }
    }

    @Test("Sending: coalescing is on by default and can be turned off per form and per session")
    func coalescing() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/me", .json(#"{"name": "Ada"}"#))
        let loader = ProfileLoader(session: Session(stubs: stubs))
        #expect(try await loader.load().name == "Ada")
        #expect(ProfileForm().coalescesRequests)
        #expect(!PollForm().coalescesRequests)
        let direct = Session { $0.coalescesRequests = false }
        #expect(!direct.configuration.coalescesRequests)
        #expect(Session.default.configuration.coalescesRequests)
    }
}
