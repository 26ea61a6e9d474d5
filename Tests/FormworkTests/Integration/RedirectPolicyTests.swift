import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A form that may carry a redirect policy of its own.
private struct RedirectForm: RequestFormable {
    var url: String
    var parameters: Parameters = [:]
    var redirectPolicy: RedirectPolicy?
}

/// What `/redirect` answers with: `{"location": ...}`.
private struct RedirectBody: Decodable, Sendable {
    let location: String
}

@Suite("Redirect policies: follow, refuse, or decide per hop")
struct RedirectPolicyTests {
    let client = Client()

    private func redirectForm(
        to target: String, status: Int = 302, policy: RedirectPolicy? = nil
    ) async throws -> RedirectForm {
        RedirectForm(
            url: try await DemoServer.url("/redirect"), parameters: ["to": target, "status": status],
            redirectPolicy: policy)
    }

    @Test("By default a redirect is followed")
    func followsByDefault() async throws {
        let target = try await DemoServer.url("/echo")
        let echo = try await client.request(try await redirectForm(to: target)).decode(Echo.self)
        #expect(echo.path == "/echo")
    }

    @Test(
        "A session that refuses gets the 3xx as the response: status, Location and body intact",
        arguments: [301, 302, 303, 307, 308])
    func sessionRefuses(status: Int) async throws {
        let target = try await DemoServer.url("/echo")
        let session = Session { $0.redirectPolicy = .refuse }
        let response = await client.request(
            try await redirectForm(to: target, status: status), session: session
        )
        .validate(statusCode: 200..<400)
        .handled(RedirectBody.self)
        #expect(response.error == nil)
        #expect(response.response?.statusCode == status)
        #expect(response.response?.value(forHTTPHeaderField: "Location") == target)
        #expect(response.value?.location == target)
    }

    @Test("A refused 3xx fails default validation with its status, and keeps its body")
    func refusedFailsValidation() async throws {
        let target = try await DemoServer.url("/echo")
        let response = await client.request(try await redirectForm(to: target, policy: .refuse))
            .handled(RedirectBody.self)
        #expect(response.error?.kind == .unacceptableStatusCode)
        #expect(response.error?.statusCode == 302)
        #expect(response.data.map { String(decoding: $0, as: UTF8.self) }?.contains("location") == true)
    }

    @Test("The form's policy wins over the session's, both ways")
    func formWins() async throws {
        let target = try await DemoServer.url("/echo")
        let refusing = Session { $0.redirectPolicy = .refuse }
        let followed = try await client.request(
            try await redirectForm(to: target, policy: .follow), session: refusing
        )
        .decode(Echo.self)
        #expect(followed.path == "/echo")
        let refused = await client.request(try await redirectForm(to: target, policy: .refuse))
            .validate(statusCode: 200..<400).handled(RedirectBody.self)
        #expect(refused.response?.statusCode == 302)
    }

    @Test("decide sees each hop: the first is followed, the second is the response")
    func decidePerHop() async throws {
        let echo = try await DemoServer.url("/echo")
        var inner = URLComponents(string: try await DemoServer.url("/redirect"))
        inner?.queryItems = [
            URLQueryItem(name: "to", value: echo), URLQueryItem(name: "status", value: "307"),
        ]
        let innerURL = try #require(inner?.url?.absoluteString)
        let hops = Counter()
        let policy = RedirectPolicy.decide { response, next in
            hops.increment()
            return response.statusCode == 302 ? next : nil
        }
        let response = await client.request(try await redirectForm(to: innerURL, policy: policy))
            .validate(statusCode: 200..<400).handled(RedirectBody.self)
        #expect(hops.count == 2)
        #expect(response.response?.statusCode == 307)
        #expect(response.value?.location == echo)
    }

    @Test("decide may change the next request; it is checked like every request")
    func decideChangesRequest() async throws {
        let target = try await DemoServer.url("/echo")
        let adding = RedirectPolicy.decide { _, next in
            var next = next
            next.headers["X-Hop"] = "1"
            return next
        }
        let echo = try await client.request(try await redirectForm(to: target, policy: adding)).decode(
            Echo.self)
        #expect(echo.headers["x-hop"] == "1")
        let injecting = RedirectPolicy.decide { _, next in
            var next = next
            next.headers["X-Hop"] = "1\r\nX-Forged: 1"
            return next
        }
        let refused = await client.request(try await redirectForm(to: target, policy: injecting)).handled(
            Echo.self)
        #expect(refused.error?.kind == .invalidHeader)
    }

    @Test(
        "A 3xx without Location is the response, whatever the policy (its body too, where the platform keeps it)"
    )
    func noLocation() async throws {
        for policy in [RedirectPolicy.follow, .refuse] {
            let form = RedirectForm(url: try await DemoServer.url("/status/302"), redirectPolicy: policy)
            let response = await client.request(form).validate(statusCode: 200..<400).handledString()
            #expect(response.error == nil)
            #expect(response.response?.statusCode == 302)
            if TransportUnderTest.isCorelibsURLSession {
                // corelibs keeps the body of a 3xx aside for a redirect that never comes, and drops it.
                #expect(response.value == "")
            } else {
                #expect(response.value?.contains("302") == true)
            }
        }
    }
}
