import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A form with a body of its own.
private struct RawBodyForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .post
    var headers: HTTPHeaders = [:]
    var parameters: Parameters = [:]
    var encoding: ParameterEncoding = .url
    var body: RequestBody?
}

@Suite("A form's raw body")
struct RawBodyTests {
    let client = Client()
    private let xml = Data("<invoice id=\"7\"><total>12.50</total></invoice>".utf8)

    @Test("The bytes are sent as they are, with their content type; parameters go to the query")
    func sent() async throws {
        let form = RawBodyForm(
            url: try await DemoServer.url("/echo"), parameters: ["v": 2],
            body: RequestBody(xml, contentType: "application/xml"))
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.body == String(decoding: xml, as: UTF8.self))
        #expect(echo.bodyLength == xml.count)
        #expect(echo.contentType == "application/xml")
        #expect(echo.queryItems["v"] == ["2"])
    }

    @Test("The form's own Content-Type header wins; .json encoding does not touch the body")
    func headerWins() async throws {
        let form = RawBodyForm(
            url: try await DemoServer.url("/echo"), method: .put,
            headers: ["Content-Type": "application/vnd.example+xml"], parameters: ["a": "b"], encoding: .json,
            body: RequestBody(xml, contentType: "application/xml"))
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.method == "PUT")
        #expect(echo.contentType == "application/vnd.example+xml")
        #expect(echo.bodyLength == xml.count)
        #expect(echo.queryItems["a"] == ["b"])
    }

    @Test("A GET with a body fails clearly before anything is sent")
    func getWithBody() async throws {
        let form = RawBodyForm(
            url: try await DemoServer.url("/echo"), method: .get,
            body: RequestBody(xml, contentType: "text/xml"))
        let response = await client.request(form).handled(Echo.self)
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.response == nil)
    }

    @Test("Without a body a form sends its parameters as before")
    func defaultIsNil() async throws {
        let form = TestForm(url: try await DemoServer.url("/echo"), method: .post, parameters: ["a": "b"])
        #expect(form.body == nil)
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.form?["a"] == ["b"])
    }
}
