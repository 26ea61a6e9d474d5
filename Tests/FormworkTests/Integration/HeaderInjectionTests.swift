import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A header that must never be sent: its name and value as an adapter would set them.
struct BadHeader: Sendable, CustomTestStringConvertible {
    let name: String
    let value: String
    var testDescription: String { "\(name.debugDescription): \(value.debugDescription)" }

    /// The value holds a secret the error must never show.
    static let secret = "s3cret-value"
    static let all = [
        BadHeader(name: "X-Name\r\nX-Forged", value: "1 \(secret)"),
        BadHeader(name: "X-Value", value: "\(secret)\r\nX-Forged: 1"),
        BadHeader(name: "X-Nul", value: "a\0\(secret)"),
        BadHeader(name: "X-N\0ul", value: "\(secret)"),
        BadHeader(name: "X-Line", value: "\(secret)\nX-Forged: 1"),
    ]

    /// Puts the header on a request the way an adapter's code does: `setValue` on Formwork's own
    /// request keeps every value (on a `URLRequest`, corelibs would drop one with CR, LF or NUL).
    func apply(to request: inout OutgoingRequest) {
        request.setValue(value, forHTTPHeaderField: name)
    }
}

/// An adapter that adds a header, from attempt `fromAttempt` on (it counts its own calls).
struct InjectingAdapter: RequestAdapter {
    let header: BadHeader
    var fromAttempt = 1
    let calls = Counter()

    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        calls.increment()
        guard calls.count >= fromAttempt else { return request }
        var request = request
        header.apply(to: &request)
        return request
    }
}

/// A credential whose authenticator puts a bad header on the request.
struct InjectingCredential: AuthenticationCredential {
    let header: BadHeader
    var requiresRefresh: Bool { false }
}

struct InjectingAuthenticator: Authenticator {
    func apply(_ credential: InjectingCredential, to request: inout OutgoingRequest) {
        credential.header.apply(to: &request)
    }
    func refresh(_ credential: InjectingCredential) async throws -> InjectingCredential { credential }
    func isRequest(_ request: URLRequest, authenticatedWith credential: InjectingCredential) -> Bool { true }
}

/// How many requests with `tag` the demo server's security routes saw.
func requestsSeen(tag: String) async throws -> Int {
    struct Seen: Decodable, Sendable { let count: Int }
    let form = TestForm(url: try await DemoServer.url("/security/seen"), parameters: ["tag": tag])
    return try await Client().request(form).decode(Seen.self).count
}

/// A unique tag for one test's requests.
func freshTag() -> String { UUID().uuidString }

@Suite("Header injection: the final request is checked on every attempt")
struct HeaderInjectionTests {
    let client = Client()

    private func form(tag: String, status: Int? = nil) async throws -> TestForm {
        var parameters: Parameters = ["tag": tag]
        if let status { parameters["status"] = status }
        return TestForm(url: try await DemoServer.url("/security/record"), parameters: parameters)
    }

    /// The request failed with `.invalidHeader` naming the header, without its value anywhere.
    private func expectRefused(_ error: NetworkError?, _ header: BadHeader) {
        #expect(error?.kind == .invalidHeader)
        let reason = error?.failureReason ?? ""
        #expect(reason.contains(String(header.name.prefix(3))))
        #expect(!reason.contains(BadHeader.secret))
        #expect(!String(describing: error).contains(BadHeader.secret))
        #expect(!(error.map { String(reflecting: $0) } ?? "").contains(BadHeader.secret))
        let kept = error?.request?.allHTTPHeaderFields ?? [:]
        #expect(!kept.values.contains { $0.contains(BadHeader.secret) })
    }

    @Test("A good header from an adapter is sent (the control for the tests below)")
    func goodHeaderIsSent() async throws {
        let tag = freshTag()
        let adapter = InjectingAdapter(header: BadHeader(name: "X-Good", value: "fine"))
        let echo = try await client.request(try await form(tag: tag)).adapt(adapter).decode(Echo.self)
        #expect(echo.headers["x-good"] == "fine")
        #expect(try await requestsSeen(tag: tag) == 1)
    }

    @Test("A request adapter's bad header fails the request and nothing is sent", arguments: BadHeader.all)
    func requestAdapter(_ header: BadHeader) async throws {
        let tag = freshTag()
        let response = await client.request(try await form(tag: tag)).adapt(InjectingAdapter(header: header))
            .handled(Echo.self)
        expectRefused(response.error, header)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("A session adapter's bad header fails the request and nothing is sent", arguments: BadHeader.all)
    func sessionAdapter(_ header: BadHeader) async throws {
        let tag = freshTag()
        let session = Session { $0.interceptors.adapters = [InjectingAdapter(header: header)] }
        let response = await client.request(try await form(tag: tag), session: session).handled(Echo.self)
        expectRefused(response.error, header)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("An authenticator's credential with a bad header fails the request and nothing is sent")
    func authenticator() async throws {
        let tag = freshTag()
        let header = BadHeader.all[0]
        let auth = AuthenticationInterceptor(
            authenticator: InjectingAuthenticator(), credential: InjectingCredential(header: header))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        let response = await client.request(try await form(tag: tag), session: session).handled(Echo.self)
        expectRefused(response.error, header)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("A retry whose adapter adds a bad header is not sent: the server sees the first attempt only")
    func retry() async throws {
        let tag = freshTag()
        let header = BadHeader.all[1]
        let response = await client.request(try await form(tag: tag, status: 503))
            .adapt(InjectingAdapter(header: header, fromAttempt: 2))
            .retry(RetryPolicy(baseDelay: 0.01))
            .handled(Echo.self)
        expectRefused(response.error, header)
        #expect(try await requestsSeen(tag: tag) == 1)
    }

    @Test("A reload whose adapter adds a bad header is not sent: the server sees the first attempt only")
    @MainActor
    func reload() async throws {
        let tag = freshTag()
        let header = BadHeader.all[0]
        let outcomes = Recorder<NetworkError?>()
        let handled = EventCounter()
        let request = client.request(try await form(tag: tag))
            .adapt(InjectingAdapter(header: header, fromAttempt: 2))
            .response { response in
                outcomes.record(response.error)
                handled.increment()
            }
        await handled.wait(for: 1)
        #expect(outcomes.values.first.map { $0 == nil } == true)
        request.core.restart()  // what a reload prompt does
        await handled.wait(for: 2)
        expectRefused(outcomes.values.last ?? nil, header)
        #expect(try await requestsSeen(tag: tag) == 1)
    }
}
