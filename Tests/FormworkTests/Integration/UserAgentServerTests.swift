import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("User-Agent on the wire")
struct UserAgentServerTests {
    let client = Client()

    private func sentUserAgent(
        session: Session = .default, headers: HTTPHeaders = [:], adapter: (any RequestAdapter)? = nil
    ) async throws -> String? {
        let form = TestForm(url: try await DemoServer.url("/echo"), headers: headers)
        var request = client.request(form, session: session)
        if let adapter { request = request.adapt(adapter) }
        return try await request.decode(Echo.self).headers["user-agent"]
    }

    @Test("By default a request names the app and Formwork, not curl")
    func byDefault() async throws {
        let sent = try await sentUserAgent()
        #expect(sent == Session.Configuration.defaultUserAgent)
        #expect(sent?.contains("curl") == false)
    }

    @Test("The session's headers, the form's headers, an adapter and the session's userAgent win")
    func appWins() async throws {
        #expect(
            try await sentUserAgent(session: Session { $0.headers = ["User-Agent": "Session/1"] })
                == "Session/1")
        #expect(try await sentUserAgent(headers: ["user-agent": "Form/1"]) == "Form/1")
        let adapter = Adapter { request in
            var request = request
            request.headers["User-Agent"] = "Adapter/1"
            return request
        }
        #expect(try await sentUserAgent(adapter: adapter) == "Adapter/1")
        #expect(try await sentUserAgent(session: Session { $0.userAgent = "Custom/2" }) == "Custom/2")
    }
}
