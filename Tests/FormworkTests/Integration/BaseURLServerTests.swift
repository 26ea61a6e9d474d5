import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Base URLs and one-off requests against the demo server")
struct BaseURLServerTests {
    @Test("Forms with relative URLs reach the server under the session's base URL; an absolute one wins")
    func relativeForms() async throws {
        let base = try await DemoServer.url("/")
        let session = Session { $0.baseURL = base }
        let echo = try await session.request(TestForm(url: "echo", parameters: ["q": "a b"])).decode(
            Echo.self)
        #expect(echo.path == "/echo")
        #expect(echo.queryItems["q"] == ["a b"])
        let rooted = try await session.request(TestForm(url: "/echo/nested/../x")).decode(Echo.self)
        #expect(rooted.path == "/echo/x")
        let absolute = try await session.request(TestForm(url: try await DemoServer.url("/echo?from=form")))
            .decode(Echo.self)
        #expect(absolute.queryItems["from"] == ["form"])
    }

    @Test(
        "A one-off request needs no form type and follows the form rules: method, parameters, headers, body")
    func oneOff() async throws {
        let base = try await DemoServer.url("/")
        let served = Session { $0.baseURL = base }
        let posted = try await served.request(
            "echo", method: .post, parameters: ["title": "Hi"], encoding: .json, headers: ["X-Trace": "7"]
        ).decode(Echo.self)
        #expect(posted.method == "POST")
        #expect(posted.headers["x-trace"] == "7")
        #expect(posted.contentType?.hasPrefix("application/json") == true)
        #expect(posted.body == #"{"title":"Hi"}"#)
        let raw = try await served.request(
            "echo", method: .put, parameters: ["v": 2],
            body: RequestBody(Data("plain words".utf8), contentType: "text/plain")
        ).decode(Echo.self)
        #expect(raw.method == "PUT")
        #expect(raw.queryItems["v"] == ["2"])
        #expect(raw.body == "plain words")
        let missing = await served.request("status/404").response()
        #expect(missing.response?.statusCode == 404)
        #expect(missing.error?.kind == .unacceptableStatusCode)
    }

    @Test("A relative URL in a session without a base URL fails with invalidURL, before anything is sent")
    func relativeWithoutBase() async {
        let request = Session().request("echo")
        await #expect {
            try await request.data()
        } throws: { error in
            (error as? NetworkError)?.kind == .invalidURL
        }
        #expect(request.response == nil)
    }
}
