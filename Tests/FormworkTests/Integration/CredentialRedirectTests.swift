import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Credentials never cross origins on a redirect")
struct CredentialRedirectTests {
    let client = Client()
    /// Every credential header, a session-declared one included, and one that is not a credential.
    let headers: HTTPHeaders = [
        "Authorization": "Bearer secret-1", "Proxy-Authorization": "Basic secret-2", "Cookie": "sid=secret-3",
        "X-Api-Key": "secret-4", "X-Other": "kept",
    ]
    let session = Session { $0.credentials.sensitiveHeaders = ["x-API-key"] }

    private func echoAfterRedirect(to target: String) async throws -> Echo {
        let base = try await DemoServer.baseURL()
        let form = TestForm(url: base + "/redirect", headers: headers, parameters: ["to": target + "/echo"])
        return try await client.request(form, session: session).decode(Echo.self)
    }

    @Test("A redirect to the same origin keeps every header")
    func sameOrigin() async throws {
        let echo = try await echoAfterRedirect(to: try await DemoServer.baseURL())
        #expect(echo.headers["authorization"] == "Bearer secret-1")
        #expect(echo.headers["proxy-authorization"] == "Basic secret-2")
        #expect(echo.headers["cookie"] == "sid=secret-3")
        #expect(echo.headers["x-api-key"] == "secret-4")
        #expect(echo.headers["x-other"] == "kept")
    }

    @Test("A redirect to another host drops every credential header and keeps the others")
    func otherHost() async throws {
        let base = try await DemoServer.baseURL()
        let echo = try await echoAfterRedirect(
            to: base.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        #expect(echo.path == "/echo")
        for name in ["authorization", "proxy-authorization", "cookie", "x-api-key"] {
            #expect(echo.headers[name] == nil, "\(name) crossed to another host")
        }
        #expect(echo.headers["x-other"] == "kept")
    }
}
