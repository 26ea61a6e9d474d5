import Formwork
import Foundation
import Testing

// The code of the DocC articles (Sources/Formwork/Formwork.docc), compiled against the public API
// only (a plain `import Formwork`), and run against stubbed sessions: no test here touches the
// network. Types are nested in the suite so that they cannot clash with the other tests' types.
//
// Changed from the articles only where a test needs it: a stubbed `session:` is passed, and
// values the articles leave open (a folder, a file) are made concrete. Not compiled here: the
// UIKit recipes (no UIKit on Linux), and the app-module `extension Formable { var headers }`,
// which would change every form of this test module (Tests/AppModuleTests covers it).

extension Envelope {
    static let api = Envelope(successCodes: ["0"])  // code at "code", message at "msg"
}

extension DataResponding {
    /// Yields each time an attempt has run every hook and handler chained before this call (a
    /// reload runs them again).
    func attemptEnds() -> AsyncStream<Void> {
        let (ends, continuation) = AsyncStream.makeStream(of: Void.self)
        response { _ in continuation.yield() }
        return ends
    }

    /// Returns once every hook and handler chained before this call has run.
    func settled() async {
        for await _ in attemptEnds() { return }
    }
}

@Suite("DocC article snippets", .timeLimit(.minutes(1)))
struct DocSnippetTests {
    static let weatherJSON =
        #"{"data": {"code": "200", "message": "OK", "city": "shanghai", "temperature": 21.5}}"#

    /// Anything can be `Requestable`; the tests send from this.
    struct Caller: Requestable {}

    /// A fresh folder in the temporary directory.
    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-docs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Lines written from any thread.
    final class Lines: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var storage: [String] = []

        func append(_ line: String) {
            lock.lock()
            defer { lock.unlock() }
            storage.append(line)
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return storage
        }
    }

    // MARK: - Formwork.md and GettingStarted.md

    struct WeatherForm: RequestFormable {
        let city: String
        var url: String { "https://api.example.com/weather" }
        var parameters: Parameters { ["city": city] }  // ?city=shanghai
    }

    struct Weather: Decodable, Sendable {
        let city: String
        let temperature: Double
    }

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

    struct WeatherError: JSONErrorable {
        static let successCodes = ["200"]  // a JSON 200 and "200" both match
        static let codePath = "data.code"
        static let messagePath = "data.message"
        let code: String?
        let message: String?
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
        stubs.stub(.get, "https://api.example.com/weather", .json(Self.weatherJSON))
        let session = Session(stubs: stubs)

        let panel = WeatherPanel()
        panel.session = session
        let request = panel.refresh()
        #expect(panel.view.masks.count == 1)
        await request.settled()
        #expect(panel.weather?.temperature == 21.5)
        #expect(panel.view.masks.isEmpty)
        #expect(panel.alert.presentedMessages.isEmpty)
        #expect(stubs.requests.first?.url?.absoluteString == "https://api.example.com/weather?city=shanghai")
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

    // MARK: - Forms.md

    struct ArticlesForm: RequestFormable {
        var page = 1
        var url: String { "https://api.example.com/articles" }
        var parameters: Parameters { ["page": page, "size": 20] }
    }

    struct CreateArticleForm: RequestFormable {
        let title: String
        var url: String { "https://api.example.com/articles" }
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["title": title] }  // a form body: title=...
        var timeout: TimeInterval? { 20 }
    }

    struct SearchForm: RequestFormable {
        var url: String { "https://api.example.com/search" }
        var parameters: Parameters { ["q": "swift concurrency", "tags": ["ios", "linux"], "exact": true] }
        var encoding: ParameterEncoding { .url(arrayEncoding: .noBrackets, boolEncoding: .numeric) }
    }

    struct NewArticle: Codable, Sendable, Equatable {  // Codable (not just Encodable) to check the body
        let title: String
        let tags: [String]
    }

    struct PublishForm: RequestFormable {
        let article: NewArticle
        var url: String { "https://api.example.com/articles" }
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["draft": false] }  // → ?draft=false
        var encoding: ParameterEncoding { .json(article) }  // → the article as the JSON body
    }

    struct ProfileForm: RequestFormable {
        let token: String
        var url: String { "https://api.example.com/me" }
        var headers: HTTPHeaders {
            var headers: HTTPHeaders = [.authorization(bearerToken: token), .accept("application/json")]
            headers["X-Client"] = "ios"
            return headers
        }
    }

    struct AvatarForm: UploadMultipartFormable {
        let userID: Int
        let photo: URL
        var url: String { "https://api.example.com/avatar" }
        var multipartFormData: MultipartFormData {
            var form = MultipartFormData()
            form.append(Data("\(userID)".utf8), name: "userID")
            form.append(photo, name: "avatar")  // file name and MIME type from the URL
            form.append(Data("{}".utf8), name: "meta", fileName: "meta.json", mimeType: "application/json")
            return form
        }
    }

    /// What a form's encoding makes of a bare request for its URL and method.
    static func encoded(_ form: some RequestFormable) throws -> URLRequest {
        var request = URLRequest(url: URL(string: form.url)!)
        request.httpMethod = form.method.rawValue
        return try form.encoding.encode(request, with: form.parameters)
    }

    @Test("Forms: queries, bodies, headers and multipart parts are what the article says")
    func forms() async throws {
        let stubs = StubRegistry()
        stubs.stub(nil, "https://api.example.com/articles", .json("{}"))
        stubs.stub(nil, "https://api.example.com/search", .json("{}"))
        stubs.stub(nil, "https://api.example.com/me", .json("{}"))
        stubs.stub(.post, "https://api.example.com/avatar", .json("{}"))
        let session = Session(stubs: stubs)
        let caller = Caller()

        _ = await caller.request(ArticlesForm(page: 2), session: session).response()
        #expect(stubs.requests.last?.url?.query == "page=2&size=20")

        let create = try Self.encoded(CreateArticleForm(title: "Hello world"))
        #expect(create.httpBody == Data("title=Hello%20world".utf8))
        #expect(
            create.value(forHTTPHeaderField: "Content-Type")
                == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(CreateArticleForm(title: "x").timeout == 20)

        _ = await caller.request(SearchForm(), session: session).response()
        #expect(stubs.requests.last?.url?.query == "exact=1&q=swift%20concurrency&tags=ios&tags=linux")

        let article = NewArticle(title: "Hi", tags: ["swift"])
        let publish = try Self.encoded(PublishForm(article: article))
        #expect(publish.url?.query == "draft=false")
        #expect(publish.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(NewArticle.self, from: try #require(publish.httpBody)) == article)

        _ = await caller.request(ProfileForm(token: "t0ken"), session: session).response()
        let sent = try #require(stubs.requests.last)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
        #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(sent.value(forHTTPHeaderField: "X-Client") == "ios")
        #expect(!ProfileForm(token: "t0ken").headers.description.contains("t0ken"))

        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("photo.jpg")
        try Data(repeating: 0xFF, count: 1_000).write(to: photo)
        let avatar = AvatarForm(userID: 42, photo: photo)
        #expect(avatar.multipartFormData.count == 3)
        #expect(avatar.method == .post)
        let reply = await caller.upload(avatar, session: session).response()
        #expect(reply.error == nil)
        let uploaded = try #require(stubs.requests.last)
        #expect(uploaded.url?.path == "/avatar")
        #expect(
            uploaded.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data; boundary=")
                == true)
    }

    @Test("Forms: a header with CR or LF fails the request before anything is sent")
    func invalidHeader() async {
        struct InjectingForm: RequestFormable {
            var url: String { "https://api.example.com/me" }
            var headers: HTTPHeaders { ["X-Note": "a\r\nX-Admin: 1"] }
        }
        let stubs = StubRegistry()
        let response = await Caller().request(InjectingForm(), session: Session(stubs: stubs)).response()
        #expect(response.error?.kind == .invalidHeader)
        #expect(stubs.requests.isEmpty)
    }

    // MARK: - Sending.md

    enum API {
        static let session = Session { configuration in
            configuration.headers = ["X-Client": "ios"]  // a form's own headers win on a clash
            configuration.timeout = 20  // idle timeout, seconds
            configuration.acceptableStatusCodes = 200..<300  // nil turns default validation off
            configuration.retrier = RetryPolicy.default  // retry transient failures
            configuration.deadline = 60  // total time per request, all attempts
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

    struct Article: Decodable, Sendable {
        let id: Int
        let title: String
    }

    struct ArticleStore: Requestable {
        var session = Session.default  // added for the test

        func page() async throws(NetworkError) -> [Article] {
            try await request(ArticlesForm(), session: session)
                .decodeEnvelope([Article].self, atKeyPath: "data.list", envelope: .api)
        }
    }

    static let articlesJSON =
        #"{"code": 0, "msg": "success", "data": {"list": [{"id": 1, "title": "Forms"}, {"id": 2, "title": "Hooks"}]}}"#

    @Test("Sending: handlers, validation, key paths and envelopes")
    @MainActor
    func sending() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/articles", .json(Self.articlesJSON))
        let session = Session(stubs: stubs)
        let caller = Caller()

        #expect(API.session.configuration.headers["x-client"] == "ios")
        #expect(API.session.configuration.deadline == 60)

        let received = Lines()
        let chained = caller.request(ArticlesForm(), session: session)
            .validate(statusCode: 200..<300)
            .retry(RetryPolicy.default)
            .responseData { response in received.append("\(response.data?.count ?? 0)") }
        await chained.settled()
        #expect(received.all == ["\(Self.articlesJSON.utf8.count)"])

        let service = ArticleService(session: session)
        #expect(try await service.firstTitle() == "Forms")
        #expect(await service.rawPage().response?.statusCode == 200)
        #expect(try await ArticleStore(session: session).page().map(\.title) == ["Forms", "Hooks"])

        let relaxed = await caller.request(ArticlesForm(), session: session).validate(statusCode: 200..<500)
            .response()
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
        failing.stub(nil, "https://api.example.com/articles", .json(#"{"code": 1001, "msg": "No access"}"#))
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

    // MARK: - LoadingAndMasks.md

    @MainActor
    final class ArticlesScreen: Requestable, Containable {
        let view = Headless.View()  // your root view
        let submitButton = Headless.Control()
        let refreshControl = Headless.RefreshControl()
        var session = Session.default  // added for the test

        func containerView() -> (any MaskHost)? { view }  // masks go on the root view

        func viewDidLoad() {
            // a full-screen mask
            request(ArticlesForm(), session: session).load(LoadType.default(container: self))
        }
        func submitTapped() {
            // disabled, with a wheel, until it ends
            request(ArticlesForm(), session: session).load(submitButton)
        }
        func pulledToRefresh() {
            // refreshing until the last load ends
            request(ArticlesForm(), session: session).load(refreshControl)
        }
        func didSelect(_ cell: Headless.TableViewCell) {
            request(ArticlesForm(), session: session).load(cell)  // a wheel on the cell's content view
        }
    }

    struct LoadConfig: Loadable {
        var container: (any Containable)?
        var text = "Loading…"
        var insets = EdgeInsets(top: 94, left: 15, bottom: 120, right: 15)

        func mask() -> (any Maskable)? { Headless.MaskView(text: text) }
        func inset() -> EdgeInsets { insets }
        func maskContainer() -> (any Containable)? { container }
        func begin() {
            showMask()
            print("loading started")  // analytics, haptics, …
        }
    }

    @Test("Loading: masks stack, controls and refresh controls wait for their last load")
    @MainActor
    func loading() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/articles", .json(Self.articlesJSON, delay: 0.2))
        let session = Session(stubs: stubs)
        let caller = Caller()

        let screen = Headless.View()
        let first = caller.request(ArticlesForm(), session: session).load(LoadType.default(container: screen))
        let second = caller.request(ArticlesForm(page: 2), session: session)
            .load(LoadType.default(container: screen))
        // screen.masks.count == 2: the first is shown, the second waits hidden behind it
        #expect(screen.masks.map(\.isHidden) == [false, true])
        await first.settled()
        await second.settled()
        #expect(screen.masks.isEmpty)

        let articles = ArticlesScreen()
        articles.session = session
        articles.viewDidLoad()
        articles.submitTapped()
        articles.submitTapped()
        articles.pulledToRefresh()
        let cell = Headless.TableViewCell()
        articles.didSelect(cell)
        #expect(articles.view.masks.count == 1)
        #expect(!articles.submitButton.isEnabled)
        #expect(articles.submitButton.masks.first is Headless.ActivityIndicator)
        #expect(articles.refreshControl.isRefreshing)
        #expect(cell.contentView.masks.count == 1)
        // The screen's methods return nothing to wait on: poll (each stub answers after 0.2 s).
        for _ in 0..<250 where !articles.view.masks.isEmpty || articles.refreshControl.isRefreshing {
            try await Task.sleep(for: .milliseconds(20))
        }
        for _ in 0..<250 where !articles.submitButton.isEnabled || !cell.contentView.masks.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(articles.view.masks.isEmpty)
        #expect(articles.submitButton.isEnabled)
        #expect(!articles.refreshControl.isRefreshing)
        #expect(cell.contentView.masks.isEmpty)

        let root = Headless.View()
        let list = Headless.ScrollView()
        root.addSubview(list)
        let custom = caller.request(ArticlesForm(), session: session)
            .load(LoadConfig(container: list, text: "Fetching articles…"))
        let mask = try #require(root.masks.first as? Headless.MaskView)
        #expect(mask.text == "Fetching articles…")
        #expect(mask.insets == EdgeInsets(top: 94, left: 15, bottom: 120, right: 15))
        #expect(!list.isScrollEnabled)
        await custom.settled()
        #expect(root.masks.isEmpty)
        #expect(list.isScrollEnabled)
    }

    // MARK: - Progress.md

    struct ReportForm: DownloadFormable {
        var year = 2026
        var destination: URL
        var url: String { "https://api.example.com/reports/\(year).pdf" }
    }

    @MainActor
    final class ReportScreen: Requestable {
        let bar = Headless.ProgressView()
        var session = Session.default  // added for the test

        func save(to destination: URL) async throws(NetworkError) -> URL {
            try await download(ReportForm(destination: destination), session: session)
                .progress(bar)
                .fileURL()
        }
    }

    @MainActor
    final class PercentLabel: Progressable {
        private(set) var text = ""

        func progress(_ progress: TransferProgress) {
            if let fraction = progress.fractionCompleted {
                text = "\(Int(fraction * 100)) %"
            } else {
                text = "\(progress.completedBytes / 1024) KiB"
            }
        }
    }

    struct Mirror: Requestable {
        var session = Session.default  // added for the test
        var log: @Sendable (String) -> Void = { print($0) }  // added for the test

        func fetch(_ form: ReportForm) async throws(NetworkError) -> URL {
            let transfer = download(form, session: session)
            Task {
                for await progress in transfer.progressUpdates {
                    log("report: \(progress)")  // "1048576/4194304 bytes (25%)"
                }
            }
            return try await transfer.fileURL()
        }
    }

    @Test("Progress: a bar, a label and an async sequence see the whole download")
    @MainActor
    func progress() async throws {
        let body = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0) })
        let stubs = StubRegistry()
        stubs.stub(
            .get, "https://api.example.com/reports/2026.pdf", StubResponse(body: body, chunkSize: 65_536))
        let session = Session(stubs: stubs)
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let screen = ReportScreen()
        screen.session = session
        let file = try await screen.save(to: folder.appendingPathComponent("a.pdf"))
        #expect(try Data(contentsOf: file) == body)

        let label = PercentLabel()
        let request = Caller().download(
            ReportForm(destination: folder.appendingPathComponent("b.pdf")), session: session
        )
        .progress(label)
        await withCheckedContinuation { continuation in
            request.response { _ in continuation.resume() }
        }
        #expect(label.text == "100 %")
        #expect(TransferProgress(completedBytes: 2_048, totalBytes: nil).fractionCompleted == nil)

        let lines = Lines()
        let mirror = Mirror(session: session, log: { lines.append($0) })
        let mirrored = try await mirror.fetch(ReportForm(destination: folder.appendingPathComponent("c.pdf")))
        #expect(try Data(contentsOf: mirrored) == body)
        for _ in 0..<100 where !lines.all.contains("report: 600000/600000 bytes (100%)") {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(lines.all.last == "report: 600000/600000 bytes (100%)")
    }

    // MARK: - Messages.md

    @MainActor
    final class WeatherPage: Requestable {
        let alert = Headless.Alert()
        let savedAlert = Headless.Alert(message: "Weather updated")
        var lastCode: String?
        var session = Session.default  // added for the test

        @discardableResult
        func refresh() -> DataRequest {
            request(WeatherForm(city: "shanghai"), session: session)
                .warn(
                    WeatherError.self, with: alert,
                    onSuccess: { success in
                        self.lastCode = success.code  // handle special codes by listing them in successCodes
                    }
                )
                .inform(WeatherError.self, with: savedAlert)
        }
    }

    struct PaymentForm: RequestFormable {
        var url: String { "https://api.example.com/pay" }
        var method: HTTPMethod { .post }
    }

    @MainActor
    final class CheckoutScreen: Requestable {
        let alert = Headless.Alert()
        var session = Session.default  // added for the test

        @discardableResult
        func pay() -> DataRequest {
            request(PaymentForm(), session: session)
                .responseEnvelope(of: Empty.self, envelope: .api) { response in
                    guard let error = response.error, error.kind == .business else { return }
                    if error.businessCode == "1001" {
                        self.alert.show(error: error.businessMessage ?? error.userMessage)
                    }
                }
        }
    }

    @Test("Messages: warn, inform, business errors and replaced words")
    @MainActor
    func messages() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/weather", .json(Self.weatherJSON))
        stubs.stub(
            .post, "https://api.example.com/pay", .json(#"{"code": 1001, "msg": "Insufficient balance"}"#))
        let session = Session(stubs: stubs)

        let page = WeatherPage()
        page.session = session
        await page.refresh().settled()
        #expect(page.lastCode == "200")
        #expect(page.alert.presentedMessages.isEmpty)
        #expect(page.savedAlert.presentedMessages == ["Weather updated"])

        let missing = StubRegistry()
        missing.stub(
            .get, "https://api.example.com/weather",
            .json(#"{"data": {"code": 404, "message": "City not found"}}"#))
        page.session = Session(stubs: missing)
        await page.refresh().settled()
        #expect(page.alert.presentedMessages == ["City not found"])
        #expect(page.savedAlert.presentedMessages == ["Weather updated"])

        let checkout = CheckoutScreen()
        checkout.session = session
        await checkout.pay().settled()
        #expect(checkout.alert.presentedMessages == ["Insufficient balance"])

        var words = MessageCatalog.english
        words.timedOut = "请求超时"
        words.offline = "网络连接已断开"
        words.serverError = "服务器开小差了，请稍后再试"
        let timeout = NetworkError(
            .transport, failureReason: "timed out", underlyingError: URLError(.timedOut))
        #expect(timeout.userMessage(using: words).hasPrefix("请求超时"))
        words.showsCodes = true
        #expect(timeout.userMessage(using: words) == "请求超时 (-1001)")
    }

    // MARK: - ReloadAndRetry.md

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

    static let onceOnMaintenance = Retrier { context in
        guard context.retryCount == 0, context.error.statusCode == 503 else { return .doNotRetry }
        return .retry(after: 5)
    }

    /// Appends `sign=` over the sorted query items, as many Chinese APIs expect (the seed's signing).
    struct SigningAdapter: RequestAdapter {
        let secret: String

        func adapt(_ request: URLRequest) async throws -> URLRequest {
            guard let url = request.url,
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { return request }
            let items = (components.queryItems ?? []).sorted { $0.name < $1.name }
            let text = items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
            components.queryItems = items + [URLQueryItem(name: "sign", value: signature(of: text + secret))]
            var signed = request
            signed.url = components.url
            return signed
        }

        private func signature(of text: String) -> String {
            String(text.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }, radix: 16)
            // an FNV-1a placeholder: use your API's HMAC (CryptoKit or swift-crypto)
        }
    }

    static let signedAPI = Session { configuration in
        configuration.adapters = [
            SigningAdapter(secret: "s3cret"),
            Adapter { request in
                var request = request
                request.setValue("2.4.0", forHTTPHeaderField: "X-App-Version")
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

        func apply(_ credential: OAuthToken, to request: inout URLRequest) {
            request.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
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
            [.failure(.notConnectedToInternet), .json(Self.weatherJSON)])
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
            [.text("busy", statusCode: 503), .json(Self.articlesJSON)])
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
        let patient = Session { $0.retrier = RetryPolicy(retryLimit: 3, maximumDelay: 10) }
        #expect((patient.configuration.retrier as? RetryPolicy)?.retryLimit == 3)

        let unsigned = URLRequest(url: URL(string: "https://api.example.com/articles?size=20&page=1")!)
        let signed = try await AdapterChain(Self.signedAPI.configuration.adapters).adapt(unsigned)
        #expect(signed.url?.query?.hasPrefix("page=1&size=20&sign=") == true)
        #expect(signed.value(forHTTPHeaderField: "X-App-Version") == "2.4.0")
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
        configuration.adapters = [auth]
        configuration.retrier = RetrierChain([auth, RetryPolicy.default])  // refresh on 401, else back off
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

    @Test("Deadline: a request that outlives its deadline fails as a timeout")
    func deadline() async {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/articles", .json("{}", delay: 30))
        let started = Date()
        let response = await Caller().request(ArticlesForm(), session: Session(stubs: stubs)).deadline(0.3)
            .response()
        #expect(response.error?.isTimeout == true)
        #expect(Date().timeIntervalSince(started) < 10)
        let bounded = Session { $0.deadline = 60 }
        #expect(bounded.configuration.deadline == 60)
    }

    // MARK: - Transfers.md

    struct Reports: Requestable {
        var session = Session.default  // added for the test

        func fetch(into folder: URL) async throws(NetworkError) -> URL {
            try await download(
                ReportForm(destination: folder.appendingPathComponent("2026.pdf")), session: session
            )
            .fileURL()
        }
    }

    struct ResumeReportForm: DownloadResumeFormable {
        let resumeData: ResumeData
        var destination: URL
    }

    struct ReportDownloader: Requestable {
        let saved: URL  // where the resume data is kept between launches
        var session = Session.default  // added for the test

        func start(into destination: URL) async throws -> URL {
            let response = await download(ReportForm(destination: destination), session: session).response()
            if let resumeData = response.resumeData {
                try resumeData.encoded().write(to: saved)  // fetch the rest later
            }
            return try response.result.get()
        }

        func resume(into destination: URL) async throws -> URL {
            let resumeData = try ResumeData(encoded: Data(contentsOf: saved))
            return try await download(
                ResumeReportForm(resumeData: resumeData, destination: destination), session: session
            )
            .fileURL()
        }
    }

    struct LogUpload: UploadFileFormable {
        let fileURL: URL
        var url: String { "https://api.example.com/logs" }
        var headers: HTTPHeaders { [.contentType("text/plain")] }  // else guessed from the extension
    }

    struct BackupUpload: UploadStreamFormable {
        let archive: URL
        var url: String { "https://api.example.com/backup" }
        func makeStream() throws -> InputStream {
            guard let stream = InputStream(url: archive) else { throw CocoaError(.fileReadNoSuchFile) }
            return stream
        }
    }

    struct Receipt: Decodable, Sendable {
        let id: String
    }

    struct Uploader: Requestable {
        var session = Session.default  // added for the test

        func uploadLog(_ log: URL) async throws(NetworkError) -> Receipt {
            try await upload(LogUpload(fileURL: log), session: session).decode(
                Receipt.self, atKeyPath: "data")
        }
    }

    struct VideoUpload: UploadMultipartFormable {
        let video: URL
        let title: String
        var url: String { "https://api.example.com/videos" }
        var multipartFormData: MultipartFormData {
            var form = MultipartFormData()
            form.append(Data(title.utf8), name: "title")
            form.append(video, name: "video")  // video/mp4 from ".mp4"
            return form
        }
    }

    @Test("Transfers: downloads, resume data, a resume the server answers in full, and uploads")
    func transfers() async throws {
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/reports/2026.pdf", StubResponse(body: body))
        stubs.stub(.post, "https://api.example.com/logs", .json(#"{"data": {"id": "log-1"}}"#))
        stubs.stub(.post, "https://api.example.com/backup", .json("{}"))
        stubs.stub(.post, "https://api.example.com/videos", .json("{}"))
        let session = Session(stubs: stubs)
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let file = try await Reports(session: session).fetch(into: folder)
        #expect(file.lastPathComponent == "2026.pdf")
        #expect(try Data(contentsOf: file) == body)

        let downloader = ReportDownloader(
            saved: folder.appendingPathComponent("resume.json"), session: session)
        #expect(
            try Data(contentsOf: try await downloader.start(into: folder.appendingPathComponent("s.pdf")))
                == body)

        // A partial download, as a failed one leaves it; this server answers 200 (no ranges), so the
        // body is written from zero and the result is still the server's file.
        let partial = folder.appendingPathComponent(".r.pdf.partial")
        try body.prefix(10_000).write(to: partial)
        let resumeData = ResumeData(
            url: "https://api.example.com/reports/2026.pdf", partialFileURL: partial, bytesReceived: 10_000,
            totalBytes: Int64(body.count), validator: .entityTag(#""v1""#),
            // A whole second: `createdAt` is stored as seconds since 1970, and an arbitrary `Date()`
            // does not always come back bit-identical from that Double (so `==` could fail).
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try resumeData.encoded().write(to: downloader.saved)
        #expect(try ResumeData(encoded: resumeData.encoded()) == resumeData)
        let resumed = try await downloader.resume(into: folder.appendingPathComponent("r.pdf"))
        #expect(try Data(contentsOf: resumed) == body)
        let resumeRequest = try #require(stubs.requests.last)
        #expect(resumeRequest.value(forHTTPHeaderField: "Range")?.hasPrefix("bytes=10000-") == true)
        #expect(resumeRequest.value(forHTTPHeaderField: "If-Range") == #""v1""#)

        let log = folder.appendingPathComponent("app.log")
        try Data("started\n".utf8).write(to: log)
        #expect(try await Uploader(session: session).uploadLog(log).id == "log-1")
        #expect(stubs.requests.last?.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(stubs.requests.last?.httpMethod == "POST")

        let backup = await Caller().upload(BackupUpload(archive: log), session: session).response()
        #expect(backup.error == nil)

        let video = folder.appendingPathComponent("clip.mp4")
        try Data(repeating: 1, count: 2_000).write(to: video)
        let upload = VideoUpload(video: video, title: "Clip")
        #expect(upload.multipartFormData.count == 2)
        #expect(upload.encodingMemoryThreshold == 10_000_000)
        #expect(await Caller().upload(upload, session: session).response().error == nil)
    }

    // MARK: - TestingWithStubs.md

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
            .post, "https://api.example.com/pay", .json(#"{"code": 1001, "msg": "Insufficient balance"}"#))
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
            await caller.request(PathForm(path: "/me"), session: session).response().error?.statusCode == 401)
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

    // MARK: - Observability.md

    struct SlowRequestReporter: EventMonitor {
        let threshold: TimeInterval
        let report: @Sendable (String) -> Void

        func requestDidFinish(_ metrics: RequestMetrics) {
            guard metrics.duration > threshold, let url = metrics.request?.url else { return }
            report(
                "slow: \(url.path) took \(Int(metrics.duration * 1000)) ms in \(metrics.attempts) attempt(s)")
        }
    }

    struct Debugging: Requestable {
        var session = Session.default  // added for the test

        func reproduce() async -> String {
            let sent = request(ProfileForm(token: "secret"), session: session)
            _ = await sent.response()
            return sent.cURLDescription() ?? ""
            // curl -v -H 'Accept: application/json' -H 'Authorization: <redacted>' ... 'https://api.example.com/me'
        }
    }

    @Test("Observability: monitors hear requests, and credentials stay redacted")
    func observability() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/me", .json("{}", delay: 0.05))
        let lines = Lines()
        let logger = ConsoleLogger(
            redaction: Redaction(headers: ["X-Api-Key"], queryItems: ["token", "sign"]),
            logsHeaders: true,
            write: { line in lines.append(line) })
        var configuration = Session.Configuration()
        configuration.eventMonitors = [logger, SlowRequestReporter(threshold: 0) { lines.append($0) }]
        let session = Session(stubs: stubs, configuration: configuration)

        let curl = await Debugging(session: session).reproduce()
        #expect(curl.contains("Authorization: <redacted>"))
        #expect(curl.contains("'https://api.example.com/me'"))
        #expect(!curl.contains("secret"))

        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("→ GET https://api.example.com/me (attempt 1)"))
        #expect(text.contains("Authorization: <redacted>"))
        #expect(text.contains("slow: /me took"))
        #expect(!text.contains("secret"))
        let observed = Session { configuration in
            configuration.eventMonitors = [ConsoleLogger(), SlowRequestReporter(threshold: 2) { print($0) }]
        }
        #expect(observed.configuration.eventMonitors.count == 2)
    }
}
