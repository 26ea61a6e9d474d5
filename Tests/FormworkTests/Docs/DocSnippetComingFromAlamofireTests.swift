import Formwork
import Foundation
import Observation
import Testing

// ComingFromAlamofire.md (shared types and helpers: DocSnippetSupport.swift). Only the article's
// Formwork code is compiled: its Alamofire code sits in the table and in "Alamofire:" lines, never in
// a Swift block, and the last test checks that every Swift block of the article is mirrored here.
// `TokenRefresher` and `OAuthToken` are ReloadAndRetry.md's (DocSnippetReloadAndRetryTests.swift);
// `WeatherForm`, `Weather` and `WeatherError` are the shared ones.

extension DocSnippetTests {
    @Suite("DocC article snippets: Coming from Alamofire")
    struct ComingFromAlamofireTests {
        typealias TokenRefresher = ReloadAndRetryTests.TokenRefresher
        typealias OAuthToken = ReloadAndRetryTests.OAuthToken

        // MARK: A session

        enum API {
            static let session = Session { configuration in
                configuration.headers = ["X-Client": "ios"]  // a form's own headers win on a clash
                configuration.timeouts.idle = 20  // Alamofire: timeoutIntervalForRequest
                configuration.timeouts.total = 60  // all attempts together
                configuration.interceptors.adapters = [AppVersionAdapter()]  // written below
                configuration.interceptors.retriers = [RetryPolicy.default]
                configuration.interceptors.eventMonitors = [ConsoleLogger()]
            }
        }

        // MARK: A request becomes a form

        struct Article: Decodable, Sendable {
            let id: Int
            let title: String
        }

        struct ArticlesForm: RequestFormable {
            var page = 1
            var url: String { "https://api.example.com/articles" }
            var parameters: Parameters { ["page": page, "size": 20] }  // ?page=1&size=20
        }

        @MainActor
        final class ArticlesViewController: Requestable {
            var articles: [Article] = []
            var session = Session.default  // added for the test
            var printed: [String] = []  // added for the test: what `print` printed

            @discardableResult  // added for the test: returns the request, to wait for it
            func reload() -> DataRequest {
                request(ArticlesForm(), session: session)
                    .responseDecodable(of: [Article].self, atKeyPath: "data.list") { response in
                        switch response.result {
                        case .success(let articles): self.articles = articles
                        case .failure(let error): self.printed.append(error.userMessage)
                        }
                    }
            }
        }

        struct Draft: Encodable, Sendable {
            let title: String
        }

        struct CreateArticleForm: RequestFormable {
            let draft: Draft
            var url: String { "https://api.example.com/articles" }
            var method: HTTPMethod { .post }
            var encoding: ParameterEncoding { .json(draft) }
        }

        // MARK: async/await

        struct ArticleService: Requestable {
            var session = Session.default  // added for the test

            func latest() async throws(NetworkError) -> [Article] {
                try await request(ArticlesForm(), session: session).decode(
                    [Article].self, atKeyPath: "data.list")
            }
        }

        // MARK: Validation

        struct MaintenanceError: Error {}

        /// The article's free functions are methods of this caller here.
        struct Calls: Requestable {
            var session = Session.default  // added for the test

            func validated() -> DataRequest {
                request(ArticlesForm(), session: session)
                    .validate(statusCode: 200..<500)  // replaces the session's range
                    .validate { _, response, _ in  // throw to reject
                        if response.value(forHTTPHeaderField: "X-Maintenance") != nil {
                            throw MaintenanceError()
                        }
                    }
            }

            func patiently() -> DataRequest {
                request(ArticlesForm(), session: session)
                    .retry(.exponential(retryLimit: 3, baseDelay: 0.5))
                    .totalTimeout(30)  // all attempts together
            }
        }

        // MARK: Errors

        static func headline(from service: ArticleService) async -> String {
            do {
                return try await service.latest().first?.title ?? ""
            } catch {
                switch error.kind {
                case .unacceptableStatusCode where error.statusCode == 404: return "No articles yet"
                case .transport where error.urlErrorCode == .notConnectedToInternet: return "Offline"
                case .keyPathNotFound, .decodingFailed: return "Please update the app"
                default: return error.userMessage  // a short sentence, from a catalog you can replace
                }
            }
        }

        // MARK: Adapters and retriers

        struct AppVersionAdapter: RequestAdapter {
            func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
                var request = request
                request.headers["X-App-Version"] = "2.4.0"
                return request
            }
        }

        static let onceOnMaintenance = Retrier { context in
            guard context.retryCount == 0, context.error.statusCode == 503 else { return .doNotRetry }
            return .retry(after: 5)
        }

        static let api = Session { configuration in
            configuration.interceptors.adapters = [AppVersionAdapter()]
            configuration.interceptors.retriers = [onceOnMaintenance, RetryPolicy.default]
        }

        static func accountSession(with token: OAuthToken) -> Session {
            let auth = AuthenticationInterceptor(authenticator: TokenRefresher(), credential: token)
            return Session { configuration in
                configuration.interceptors.adapters = [auth]
                // refresh on 401, else back off
                configuration.interceptors.retriers = [auth, RetryPolicy.default]
            }
        }

        // MARK: Uploads

        struct Receipt: Decodable, Sendable {
            let id: String
        }

        struct VideoUpload: UploadMultipartFormable {
            let video: URL
            var url: String { "https://api.example.com/videos" }
            var multipartFormData: MultipartFormData {
                var form = MultipartFormData()
                form.append(Data("Clip".utf8), name: "title")
                form.append(video, name: "video")  // video/mp4 from ".mp4"
                return form
            }
        }

        @MainActor
        final class VideoScreen: Requestable {
            let bar = Headless.ProgressView()  // or your UIProgressView, made Progressable
            var session = Session.default  // added for the test

            func send(_ video: URL) async throws(NetworkError) -> Receipt {
                try await upload(VideoUpload(video: video), session: session).progress(bar).decode(
                    Receipt.self, atKeyPath: "data")
            }
        }

        // MARK: Downloads and resuming

        struct ReportForm: DownloadFormable {
            var destination: URL
            var url: String { "https://api.example.com/reports/2026.pdf" }
            var destinationOptions: DownloadDestinationOptions {
                [.removePreviousFile, .createIntermediateDirectories]
            }
        }

        struct ResumeReportForm: DownloadResumeFormable {
            let resumeData: ResumeData
            var destination: URL
        }

        struct Reports: Requestable {
            let saved: URL  // where the resume data waits, across launches
            var session = Session.default  // added for the test

            func fetch(to destination: URL) async throws -> URL {
                let response = await download(ReportForm(destination: destination), session: session)
                    .response()
                if let resumeData = response.resumeData {
                    try resumeData.encoded().write(to: saved)
                }
                return try response.result.get()
            }

            func resume(to destination: URL) async throws -> URL {
                let resumeData = try ResumeData(encoded: Data(contentsOf: saved))
                return try await download(
                    ResumeReportForm(resumeData: resumeData, destination: destination), session: session
                )
                .fileURL()
            }
        }

        // MARK: Testing with stubs

        static func stubbedArticles() async throws -> [Article] {
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/articles",
                .json(#"{"data": {"list": [{"id": 1, "title": "Forms"}]}}"#))
            stubs.stub(.get, "https://api.example.com/flaky", [.failure(.timedOut), .json("{}")])  // in turn
            let session = Session(stubs: stubs)
            return try await session.request(ArticlesForm()).decode([Article].self, atKeyPath: "data.list")
        }

        // MARK: Event monitors

        struct SlowRequestReporter: EventMonitor {
            var lines: Lines?  // added for the test: where `print` goes

            func requestDidFinish(_ metrics: RequestMetrics) {
                guard metrics.duration > 2, let url = metrics.request?.url else { return }
                lines?.append("slow: \(url.path), \(metrics.attempts) attempt(s)")
            }
        }

        static let observed = Session {
            $0.interceptors.eventMonitors = [ConsoleLogger(), SlowRequestReporter()]
        }

        // MARK: What Formwork adds

        @MainActor
        final class ForecastScreen: Requestable, Containable, Reloadable {
            let view = Headless.View()
            let alert = Headless.Alert()
            var weather: Weather?
            var session = Session.default  // added for the test

            func containerView() -> (any MaskHost)? { view }
            func reloadContainer() -> (any Containable)? { self }  // "tap to reload" on the same view

            @discardableResult  // added for the test: returns the request, to wait for it
            func viewDidLoad() -> DataRequest {
                request(WeatherForm(city: "shanghai"), session: session)
                    .load(LoadType.default(container: self))  // a mask while it runs
                    .warn(WeatherError.self, with: alert)  // the server's message if it fails
                    .reload(on: self)  // "tap to reload" after a network failure
                    .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                        self.weather = response.value
                    }
            }
        }

        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        final class ArticlesScreenModel: Requestable {
            let articles = RequestModel<[Article]>()
            var session = Session.default  // added for the test

            func load() {
                request(ArticlesForm(), session: session).bind(to: articles, atKeyPath: "data.list")
            }
        }

        // MARK: - Tests

        static let articlesURL = "https://api.example.com/articles"

        @Test("A session: grouped settings; adapters, retriers and the token interceptor in their lists")
        func session() async throws {
            let configuration = API.session.configuration
            #expect(configuration.timeouts.idle == 20 && configuration.timeouts.total == 60)
            #expect(configuration.headers["X-Client"] == "ios")
            #expect(configuration.interceptors.adapters.count == 1)
            #expect(configuration.interceptors.retriers.first is RetryPolicy)
            #expect(configuration.interceptors.eventMonitors.first is ConsoleLogger)

            // The adapter sets its header, sent for real through a stubbed session.
            let stubs = StubRegistry()
            stubs.stub(.get, Self.articlesURL, .json(articlesJSON))
            var adapted = Session.Configuration()
            adapted.interceptors = Self.api.configuration.interceptors
            _ = try await Caller().request(
                ArticlesForm(), session: Session(stubs: stubs, configuration: adapted)
            )
            .data()
            #expect(stubs.requests.last?.value(forHTTPHeaderField: "X-App-Version") == "2.4.0")
            #expect(stubs.requests.last?.url?.query == "page=1&size=20")

            let status = try #require(
                HTTPURLResponse(
                    url: URL(string: Self.articlesURL)!, statusCode: 503, httpVersion: nil, headerFields: nil)
            )
            let busy = NetworkError(.unacceptableStatusCode, failureReason: "503", response: status)
            let first = RetryContext(request: nil, response: status, error: busy, retryCount: 0)
            #expect(await Self.onceOnMaintenance.decide(first) == .retry(after: 5))
            let second = RetryContext(request: nil, response: status, error: busy, retryCount: 1)
            #expect(await Self.onceOnMaintenance.decide(second) == .doNotRetry)

            let account = Self.accountSession(with: OAuthToken(accessToken: "a", refreshToken: "r"))
            #expect(
                account.configuration.interceptors.adapters.first is AuthenticationInterceptor<TokenRefresher>
            )
            #expect(account.configuration.interceptors.retriers.count == 2)
        }

        @Test("A request becomes a form: handlers decode at a key path; a 500 fails without .validate()")
        @MainActor
        func form() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, Self.articlesURL, [.json(articlesJSON), .text("down", statusCode: 500)])
            stubs.stub(.post, Self.articlesURL, .json("{}"))
            let screen = ArticlesViewController()
            screen.session = Session(stubs: stubs)
            await screen.reload().settled()
            #expect(screen.articles.map(\.title) == ["Forms", "Hooks"])
            await screen.reload().settled()
            #expect(screen.articles.count == 2)  // kept
            #expect(screen.printed.count == 1)

            let created = await Caller().request(
                CreateArticleForm(draft: Draft(title: "Hooks")), session: screen.session
            ).response()
            #expect(created.error == nil)
            let sent = try #require(stubs.requests.last)
            #expect(sent.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)
            #expect(created.request?.httpBody == Data(#"{"title":"Hooks"}"#.utf8))
        }

        @Test("async/await and errors: one NetworkError, switched on its kind")
        func errors() async throws {
            let stubs = StubRegistry()
            let service = ArticleService(session: Session(stubs: stubs))
            stubs.stub(.get, Self.articlesURL, .json(articlesJSON))
            #expect(try await service.latest().map(\.id) == [1, 2])
            #expect(await Self.headline(from: service) == "Forms")
            stubs.stub(.get, Self.articlesURL, .json("{}", statusCode: 404))
            #expect(await Self.headline(from: service) == "No articles yet")
            stubs.stub(.get, Self.articlesURL, .failure(.notConnectedToInternet))
            #expect(await Self.headline(from: service) == "Offline")
            stubs.stub(.get, Self.articlesURL, .json(#"{"data": {"items": []}}"#))
            #expect(await Self.headline(from: service) == "Please update the app")
            stubs.stub(.get, Self.articlesURL, .json(#"{"data": {"list": [{"id": "one"}]}}"#))
            #expect(await Self.headline(from: service) == "Please update the app")
            stubs.stub(.get, Self.articlesURL, .text("down", statusCode: 500))
            let headline = await Self.headline(from: service)
            #expect(headline.isEmpty == false)
            #expect(headline != "No articles yet")
        }

        @Test("Validation: a wider range, and a validator that throws")
        func validation() async throws {
            let stubs = StubRegistry()
            let calls = Calls(session: Session(stubs: stubs))
            stubs.stub(.get, Self.articlesURL, .json("{}", statusCode: 404))
            #expect(await calls.validated().response().error == nil)
            stubs.stub(
                .get, Self.articlesURL,
                StubResponse(statusCode: 200, headers: ["X-Maintenance": "1"], body: Data("{}".utf8)))
            let error = try #require(await calls.validated().response().error)
            #expect(error.kind == .validationFailed)
            #expect(error.underlyingError is MaintenanceError)
        }

        @Test("Retry: an exponential policy retries a 503, within a deadline")
        func retry() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .get, Self.articlesURL,
                [.text("busy", statusCode: 503), .text("busy", statusCode: 503), .json(articlesJSON)])
            let response = await Calls(session: Session(stubs: stubs)).patiently().response()
            #expect(response.error == nil)
            #expect(stubs.requests.count == 3)
        }

        @Test("Uploads and downloads: a multipart upload, a download, and a resume from stored resume data")
        @MainActor
        func transfers() async throws {
            let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let stubs = StubRegistry()
            stubs.stub(.post, "https://api.example.com/videos", .json(#"{"data": {"id": "v-1"}}"#))
            stubs.stub(.get, "https://api.example.com/reports/2026.pdf", StubResponse(body: body))
            let session = Session(stubs: stubs)
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }

            let video = folder.appendingPathComponent("clip.mp4")
            try Data(repeating: 1, count: 2_000).write(to: video)
            let screen = VideoScreen()
            screen.session = session
            #expect(try await screen.send(video).id == "v-1")
            let sent = try #require(stubs.requests.last)
            #expect(sent.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data") == true)

            let reports = Reports(saved: folder.appendingPathComponent("resume.json"), session: session)
            let destination = folder.appendingPathComponent("reports/2026.pdf")  // a folder to create
            #expect(try Data(contentsOf: try await reports.fetch(to: destination)) == body)
            #expect(try Data(contentsOf: try await reports.fetch(to: destination)) == body)  // replaced

            // Resume data as a failed download leaves it; this server ignores ranges, so the body
            // is written from zero and the result is still the server's file.
            let partial = folder.appendingPathComponent(".r.pdf.partial")
            try body.prefix(10_000).write(to: partial)
            let resumeData = partialDownload(
                url: "https://api.example.com/reports/2026.pdf", partialFileURL: partial,
                bytesReceived: 10_000, totalBytes: Int64(body.count), entityTag: #""v1""#)
            try resumeData.encoded().write(to: reports.saved)
            let resumed = folder.appendingPathComponent("reports/resumed.pdf")
            #expect(try Data(contentsOf: try await reports.resume(to: resumed)) == body)
            #expect(
                stubs.requests.last?.value(forHTTPHeaderField: "Range")?.hasPrefix("bytes=10000-") == true)
        }

        @Test("Testing with stubs: the article's function decodes the stubbed list")
        func stubbed() async throws {
            #expect(try await Self.stubbedArticles().map(\.title) == ["Forms"])
        }

        @Test("Event monitors: the slow-request reporter hears a slow request finish")
        func monitors() async throws {
            #expect(Self.observed.configuration.interceptors.eventMonitors.count == 2)
            let lines = Lines()
            let stubs = StubRegistry()
            stubs.stub(.get, Self.articlesURL, .json(articlesJSON, delay: 2.1))
            var configuration = Session.Configuration()
            configuration.interceptors.eventMonitors = [SlowRequestReporter(lines: lines)]
            let session = Session(stubs: stubs, configuration: configuration)
            _ = await Caller().request(ArticlesForm(), session: session).response()
            #expect(lines.all == ["slow: /articles, 1 attempt(s)"])
        }

        @Test("What Formwork adds: chained hooks on a headless screen, and a RequestModel")
        @MainActor
        func additions() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/weather", .json(weatherJSON))
            stubs.stub(.get, Self.articlesURL, .json(articlesJSON))
            let forecast = ForecastScreen()
            forecast.session = Session(stubs: stubs)
            let running = forecast.viewDidLoad()
            #expect(forecast.view.masks.count == 1)  // the mask is up while it runs
            await running.settled()
            #expect(forecast.weather?.city == "shanghai")
            #expect(forecast.view.masks.isEmpty)
            #expect(forecast.alert.presentedMessages.isEmpty)

            guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *) else { return }
            let model = ArticlesScreenModel()
            model.session = forecast.session
            model.load()
            while model.articles.phase.isLoading {
                await withCheckedContinuation { continuation in
                    withObservationTracking {
                        _ = model.articles.phase
                    } onChange: {
                        continuation.resume()
                    }
                }
            }
            #expect(model.articles.value?.map(\.title) == ["Forms", "Hooks"])
        }

        @Test("every Swift block of the article is mirrored in this file")
        func mirrored() throws {
            let here = URL(fileURLWithPath: #filePath)
            let root = here.deletingLastPathComponent()  // Docs
                .deletingLastPathComponent()  // FormworkTests
                .deletingLastPathComponent()  // Tests
                .deletingLastPathComponent()
            let article = try String(
                contentsOf: root.appendingPathComponent(
                    "Sources/Formwork/Formwork.docc/ComingFromAlamofire.md"),
                encoding: .utf8)
            let mirror = try String(contentsOf: here, encoding: .utf8)
            let lines = article.components(separatedBy: "\n")
            var blocks = 0
            for (index, line) in lines.enumerated() where line == "```swift" {
                blocks += 1
                // Each block's declarations (its lines that start a type, a function or a constant)
                // declare the same names here; a signature may differ where a comment says why.
                let block = lines[(index + 1)...].prefix { $0 != "```" }
                let names = block.map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
                    ["struct ", "enum ", "final class ", "func ", "let ", "static let "].contains {
                        line.hasPrefix($0)
                    } && (line.hasSuffix("{") || line.hasSuffix(" in"))
                }.map { line in
                    String(line.prefix { !"(:={".contains($0) }).trimmingCharacters(in: .whitespaces)
                }
                #expect(!names.isEmpty, "a block without a declaration: \(block.first ?? "")")
                for name in names {
                    #expect(
                        mirror.contains(name + "(") || mirror.contains(name + ":")
                            || mirror.contains(name + " "),
                        "not mirrored: \(name)")
                }
            }
            #expect(blocks == 15)
        }
    }
}
