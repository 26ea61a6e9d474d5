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
        let session = Session { $0.adapters = [TokenAdapter(token: "s3cret\n")] }
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
}
