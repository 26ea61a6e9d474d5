import Formwork
import Foundation
import Testing

// The code of the DocC articles (Sources/Formwork/Formwork.docc), compiled against the public API
// only (a plain `import Formwork`), and run against stubbed sessions: no test here touches the
// network. One file per article (DocSnippet<Article>Tests.swift), each with its own suite nested in
// `DocSnippetTests`; this file holds what several articles use. Types are nested in the suites so
// that they cannot clash with the other tests' types.
//
// The exception is Transports.md (DocSnippetTransportsTests.swift): a stubbed session always runs
// on the built-in URLSession transport, so a transport's code must meet the demo server. Its suite
// stands alone (a longer time limit, for the server's first start) and reaches the built-in
// transport, which has no public name, through `@testable import`. OfflineOutbox.md
// (DocSnippetOfflineOutboxTests.swift) stands alone too: what an outbox promises (applied once,
// the same key after a relaunch, waiting offline) is checked against the demo server's
// `/idempotency/apply`.
//
// Changed from the articles only where a test needs it: a stubbed `session:` is passed, and
// values the articles leave open (a folder, a file) are made concrete. Not compiled here: the
// UIKit recipes (no UIKit on Linux), and the app-module `extension Formable { var headers }`,
// which would change every form of this test module (Tests/AppModuleTests covers it).

extension Envelope {
    static let api = Envelope(messagePath: "msg", successCodes: ["0"])  // {code, msg, data}
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
    static let articlesJSON =
        #"{"code": 0, "msg": "success", "data": {"list": [{"id": 1, "title": "Forms"}, {"id": 2, "title": "Hooks"}]}}"#

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

    struct WeatherError: JSONErrorable {
        static let envelope = Envelope(
            codePath: "data.code", messagePath: "data.message",
            successCodes: ["200"])  // a JSON 200 and "200" both match
        let code: String?
        let message: String?
    }

    // MARK: - Forms.md

    struct ArticlesForm: RequestFormable {
        var page = 1
        var url: String { "https://api.example.com/articles" }
        var parameters: Parameters { ["page": page, "size": 20] }
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

    // MARK: - Sending.md

    struct Article: Decodable, Sendable {
        let id: Int
        let title: String
    }

    // MARK: - Progress.md

    struct ReportForm: DownloadFormable {
        var year = 2026
        var destination: URL
        var url: String { "https://api.example.com/reports/\(year).pdf" }
    }

    // MARK: - ReloadAndRetry.md

    /// Appends `sign=` over the sorted query items, as many Chinese APIs expect.
    struct SigningAdapter: RequestAdapter {
        let secret: String

        func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
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
}
