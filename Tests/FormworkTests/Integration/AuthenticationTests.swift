import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A bearer token for the demo server's `/auth` realm.
struct Token: AuthenticationCredential {
    let value: String
    var expired = false
    var requiresRefresh: Bool { expired }
}

/// Refreshes tokens with the demo server's `/auth/refresh`, counting refreshes.
struct DemoAuthenticator: Authenticator {
    let base: String
    let realm: String
    var failsRefresh = false

    func apply(_ credential: Token, to request: inout OutgoingRequest) {
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: Token) async throws -> Token {
        struct Refreshed: Decodable, Sendable { let token: String }
        let form = TestForm(
            url: base + "/auth/refresh", method: .post,
            parameters: ["realm": realm, "fail": failsRefresh ? 1 : 0],
            encoding: .query)
        return Token(value: try await Session.default.request(form).decode(Refreshed.self).token)
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: Token) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

@Suite("Authentication with refresh against the demo server")
struct AuthenticationTests {
    struct Protected: Decodable, Sendable {
        let realm: String
        let token: String
    }

    struct Stats: Decodable, Sendable {
        let refreshes: Int
        let rejected: Int
        let accepted: Int
    }

    private func stats(_ base: String, _ realm: String) async throws -> Stats {
        try await Client().request(TestForm(url: base + "/auth/stats", parameters: ["realm": realm])).decode(
            Stats.self)
    }

    @Test("50 concurrent 401s cause exactly one refresh, then all are replayed and succeed")
    func oneRefreshForConcurrent401s() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "r\(UUID().uuidString.prefix(8))"
        let auth = AuthenticationInterceptor(
            authenticator: DemoAuthenticator(base: base, realm: realm),
            credential: Token(value: "\(realm)-stale"))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
            // Each of the 50 must reach the server (identical replays would otherwise share one).
            $0.coalescesRequests = false
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
                    return try await Client().request(form, session: session).decode(Protected.self).token
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 50)
        #expect(Set(tokens) == ["\(realm)-1"])
        #expect(await auth.refreshCount == 1)
        let server = try await stats(base, realm)
        #expect(server.refreshes == 1)
        #expect(server.accepted == 50)
    }

    @Test("A credential that says it expired is refreshed before the request is sent")
    func proactiveRefresh() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "p\(UUID().uuidString.prefix(8))"
        let auth = AuthenticationInterceptor(
            authenticator: DemoAuthenticator(base: base, realm: realm),
            credential: Token(value: "\(realm)-0", expired: true))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
        #expect(
            try await Client().request(form, session: session).decode(Protected.self).token == "\(realm)-1")
        #expect(try await stats(base, realm).rejected == 0)
    }

    @Test("When the refresh fails, every waiting request fails cleanly with its 401")
    func refreshFails() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "f\(UUID().uuidString.prefix(8))"
        let auth = AuthenticationInterceptor(
            authenticator: DemoAuthenticator(base: base, realm: realm, failsRefresh: true),
            credential: Token(value: "\(realm)-stale"))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
                    return await Client().request(form, session: session).handled(Protected.self).error?
                        .statusCode
                }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 401, count: 10))
        #expect(await auth.credential?.value == "\(realm)-stale")
        #expect(try await stats(base, realm).accepted == 0)
    }
}
