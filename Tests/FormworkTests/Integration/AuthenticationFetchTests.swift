import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Signs in asynchronously for its first token (the demo server's `/auth/refresh` stands for a
/// sign-in endpoint), counting the fetches; refreshes as `DemoAuthenticator` does.
private struct SigningInAuthenticator: Authenticator {
    let base: String
    let realm: String
    let fetches = Protected(0)
    var failsFetch = false

    func fetchCredential() async throws -> Token? {
        fetches.withLock { $0 += 1 }
        struct Refreshed: Decodable, Sendable { let token: String }
        let form = TestForm(
            url: base + "/auth/refresh", method: .post,
            parameters: ["realm": realm, "fail": failsFetch ? 1 : 0],
            encoding: .query)
        return Token(value: try await Session.default.request(form).decode(Refreshed.self).token)
    }

    func apply(_ credential: Token, to request: inout OutgoingRequest) {
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: Token) async throws -> Token {
        try await DemoAuthenticator(base: base, realm: realm).refresh(credential)
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

@Suite("An authenticator whose first credential is fetched asynchronously, against the demo server")
struct AuthenticationFetchTests {
    struct Protected: Decodable, Sendable { let token: String }
    struct Stats: Decodable, Sendable {
        let refreshes: Int
        let rejected: Int
        let accepted: Int
    }

    private func stats(_ base: String, _ realm: String) async throws -> Stats {
        try await Client().request(TestForm(url: base + "/auth/stats", parameters: ["realm": realm])).decode(
            Stats.self)
    }

    private func session(_ auth: some RequestAdapter & RequestRetrier) -> Session {
        Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
            $0.coalescesRequests = false
        }
    }

    @Test("20 concurrent requests without a credential wait for one fetch, then all go with it")
    func plainRequests() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "a\(UUID().uuidString.prefix(8))"
        let authenticator = SigningInAuthenticator(base: base, realm: realm)
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: nil)
        let session = session(auth)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
                    return try await Client().request(form, session: session).decode(Protected.self).token
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "\(realm)-1", count: 20))
        #expect(authenticator.fetches.current == 1)
        #expect(await auth.credential?.value == "\(realm)-1")
        let server = try await stats(base, realm)
        #expect(server.rejected == 0)
        #expect(server.accepted == 20)
    }

    @Test("A stream's first connection waits for the fetch; reconnects reuse the credential")
    func stream() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "s\(UUID().uuidString.prefix(8))"
        let key = streamKey()
        let authenticator = SigningInAuthenticator(base: base, realm: realm)
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: nil)
        let url = base + "/sse?key=\(key)&realm=\(realm)&count=2&total=4&retry=10"
        let events = try await collect(Client().stream(TestForm(url: url), session: session(auth)).events())
        #expect(events.map(\.id) == ids(1...4))
        #expect(authenticator.fetches.current == 1)
        #expect(try await streamStats(key).connections == 3)  // 2 with events, then the 204
        #expect(try await stats(base, realm).refreshes == 1)  // the fetch; no refresh after it
    }

    @Test("A failed fetch fails the request with its error; the next request fetches again")
    func failedFetch() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "f\(UUID().uuidString.prefix(8))"
        let failing = SigningInAuthenticator(base: base, realm: realm, failsFetch: true)
        let auth = AuthenticationInterceptor(authenticator: failing, credential: nil)
        let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
        let outcome = await Client().request(form, session: session(auth)).handled(Protected.self)
        #expect(outcome.error?.statusCode == nil)  // never sent: not a 401 from the server
        #expect(outcome.error != nil)
        _ = await Client().request(form, session: session(auth)).handled(Protected.self)
        #expect(failing.fetches.current == 2)
        #expect(try await stats(base, realm).rejected == 0)
    }
}
