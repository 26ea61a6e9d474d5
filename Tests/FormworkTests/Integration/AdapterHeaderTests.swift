import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// An adapter that sets a token read as an app would (e.g. from a file, trailing newline included)
/// through `URLRequest.headers`.
private struct TokenAdapter: RequestAdapter {
    let token: String

    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        request.headers["Authorization"] = "Bearer \(token)"
        return request
    }
}

/// How an adapter sets a header on its ``OutgoingRequest``: each member that sets one, including
/// `setValue(_:forHTTPHeaderField:)`, which on a corelibs `URLRequest` drops such a value silently.
enum HeaderSetter: String, CaseIterable, Sendable {
    case setValue, addValue, headers, allHTTPHeaderFields

    func set(_ value: String, named name: String, on request: inout OutgoingRequest) {
        switch self {
        case .setValue: request.setValue(value, forHTTPHeaderField: name)
        case .addValue: request.addValue(value, forHTTPHeaderField: name)
        case .headers: request.headers[name] = value
        case .allHTTPHeaderFields:
            var fields = request.allHTTPHeaderFields ?? [:]
            fields[name] = value
            request.allHTTPHeaderFields = fields
        }
    }
}

/// An adapter that sets `X-Api-Token` the way `setter` does.
private func tokenAdapter(_ value: String, _ setter: HeaderSetter) -> Adapter {
    Adapter { request in
        var request = request
        setter.set(value, named: "X-Api-Token", on: &request)
        return request
    }
}

@Suite("Adapters' headers: a value with CR, LF or NUL fails the request on every platform")
struct AdapterHeaderTests {
    let client = Client()

    private func form(tag: String) async throws -> TestForm {
        TestForm(url: try await DemoServer.url("/security/record"), parameters: ["tag": tag])
    }

    private func expectRefused(_ error: NetworkError?) {
        #expect(error?.kind == .invalidHeader)
        #expect((error?.failureReason as String?)?.contains("Authorization") == true)
        #expect(!String(describing: error).contains("s3cret"))
    }

    @Test("A good token from a request adapter is sent (the control)")
    func goodToken() async throws {
        let tag = freshTag()
        let echo = try await client.request(try await form(tag: tag)).adapt(TokenAdapter(token: "s3cret"))
            .decode(Echo.self)
        #expect(echo.headers["authorization"] == "Bearer s3cret")
    }

    @Test(
        "A request adapter's token with a line break or NUL fails with .invalidHeader, nothing is sent",
        arguments: ["s3cret\n", "s3cret\r\n", "s3cret\r", "s3c\0ret"])
    func requestAdapter(token: String) async throws {
        let tag = freshTag()
        let response = await client.request(try await form(tag: tag)).adapt(TokenAdapter(token: token))
            .handled(Echo.self)
        expectRefused(response.error)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("A session adapter's token with a trailing newline fails with .invalidHeader, nothing is sent")
    func sessionAdapter() async throws {
        let tag = freshTag()
        let session = Session { $0.interceptors.adapters = [TokenAdapter(token: "s3cret\n")] }
        let response = await client.request(try await form(tag: tag), session: session).handled(Echo.self)
        expectRefused(response.error)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("A closure adapter replacing a good header with a bad one fails instead of sending the old one")
    func replacing() async throws {
        let tag = freshTag()
        var form = try await form(tag: tag)
        form.headers = ["Authorization": "Bearer old"]
        let response = await client.request(form).adapt(TokenAdapter(token: "new\n")).handled(Echo.self)
        expectRefused(response.error)
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    /// The values of issue 23 §4, each holding a secret the error must not show.
    static let badTokens = ["s3cret\n", "a\rb-s3cret", "s3c\0ret"]

    private func expectRefused(_ error: NetworkError?, naming name: String) {
        #expect(error?.kind == .invalidHeader)
        #expect((error?.failureReason as String?)?.contains(name) == true)
        #expect(!String(describing: error).contains("s3cret"))
        #expect(error?.request?.value(forHTTPHeaderField: name) == nil)
    }

    @Test(
        "A good token set by each member of OutgoingRequest is sent (the control)",
        arguments: HeaderSetter.allCases)
    func goodTokenEverySetter(_ setter: HeaderSetter) async throws {
        let tag = freshTag()
        let session = Session { $0.interceptors.adapters = [tokenAdapter("s3cret-session", setter)] }
        let echo = try await client.request(try await form(tag: tag), session: session)
            .adapt(
                Adapter { request in
                    var request = request
                    setter.set("s3cret-request", named: "X-Request-Token", on: &request)
                    return request
                }
            )
            .decode(Echo.self)
        #expect(echo.headers["x-api-token"] == "s3cret-session")
        #expect(echo.headers["x-request-token"] == "s3cret-request")
    }

    @Test(
        "A request adapter's value with CR, LF or NUL fails with .invalidHeader naming the header, whichever member set it; nothing is sent",
        arguments: badTokens, HeaderSetter.allCases)
    func requestAdapterEverySetter(token: String, setter: HeaderSetter) async throws {
        let tag = freshTag()
        let response = await client.request(try await form(tag: tag)).adapt(tokenAdapter(token, setter))
            .handled(Echo.self)
        expectRefused(response.error, naming: "X-Api-Token")
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test(
        "A session adapter's value with CR, LF or NUL fails with .invalidHeader naming the header, whichever member set it; nothing is sent",
        arguments: badTokens, HeaderSetter.allCases)
    func sessionAdapterEverySetter(token: String, setter: HeaderSetter) async throws {
        let tag = freshTag()
        let session = Session { $0.interceptors.adapters = [tokenAdapter(token, setter)] }
        let response = await client.request(try await form(tag: tag), session: session).handled(Echo.self)
        expectRefused(response.error, naming: "X-Api-Token")
        #expect(try await requestsSeen(tag: tag) == 0)
    }

    @Test("A request adapter after a good session adapter still fails the request with its bad value")
    func badAfterGood() async throws {
        let tag = freshTag()
        let session = Session { $0.interceptors.adapters = [tokenAdapter("s3cret-good", .setValue)] }
        let response = await client.request(try await form(tag: tag), session: session)
            .adapt(tokenAdapter("s3cret-bad\n", .setValue))
            .handled(Echo.self)
        expectRefused(response.error, naming: "X-Api-Token")
        #expect(try await requestsSeen(tag: tag) == 0)
    }
}
