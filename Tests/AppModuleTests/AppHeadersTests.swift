import Formwork
import FormworkTestSupport
import Foundation
import Testing

// The MBNetwork way to give every form of an app the same headers: one extension in the app.
extension Formable {
    var headers: HTTPHeaders { ["accessToken": "app-token-123"] }
}

private struct ProfileForm: RequestFormable {
    let url: String
}

private struct LoginForm: RequestFormable {
    let url: String
    var headers: HTTPHeaders { ["X-Login": "1"] }
}

/// The part of the demo server's `/echo` answer this test reads.
private struct EchoedHeaders: Decodable, Sendable {
    let headers: [String: String]
}

@Suite("An app-module Formable extension")
struct AppHeadersTests {
    @Test("sets headers for every form of the app that does not declare its own")
    func appWideHeaders() async throws {
        let request = Session.default.request(ProfileForm(url: try await DemoServer.url("/echo")))
        let echo = try await request.decode(EchoedHeaders.self)
        #expect(echo.headers["accesstoken"] == "app-token-123")
        #expect(request.request?.value(forHTTPHeaderField: "accessToken") == "app-token-123")
    }

    @Test("is overridden by a form that declares its own headers")
    func formOverrides() async throws {
        let echo = try await Session.default.request(LoginForm(url: try await DemoServer.url("/echo")))
            .decode(EchoedHeaders.self)
        #expect(echo.headers["x-login"] == "1")
        #expect(echo.headers["accesstoken"] == nil)
    }
}
