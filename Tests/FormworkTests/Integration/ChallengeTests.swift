import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A Basic credential for the demo server's `/challenge/basic`, applied as a header by an
/// `AuthenticationInterceptor`; its refresh yields the right password.
struct BasicToken: AuthenticationCredential {
    let password: String
    var requiresRefresh: Bool { false }
}

struct BasicAuthenticator: Authenticator {
    let rightPassword: String

    func apply(_ credential: BasicToken, to request: inout OutgoingRequest) {
        let header = HTTPHeader.authorization(username: "ada", password: credential.password)
        request.setValue(header.value, forHTTPHeaderField: header.name)
    }
    func refresh(_ credential: BasicToken) async throws -> BasicToken { BasicToken(password: rightPassword) }
    func isRequest(_ request: URLRequest, authenticatedWith credential: BasicToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization")
            == HTTPHeader.authorization(username: "ada", password: credential.password).value
    }
}

@Suite("Authentication challenges end at once, like on Apple platforms", .timeLimit(.minutes(2)))
struct ChallengeTests {
    struct User: Decodable, Sendable { let user: String }

    private func form(_ path: String, tag: String, _ extra: Parameters = [:]) async throws -> TestForm {
        var parameters: Parameters = ["tag": tag, "user": "ada", "password": "lovelace"]
        parameters.merge(extra) { $1 }
        return TestForm(url: try await DemoServer.url(path), parameters: parameters, idleTimeout: 30)
    }

    /// Sends and returns the outcome. "At once" is checked by the outcome, not by a clock: a task
    /// that hung on the challenge would end with the form's 30 s idle timeout (a `.timeout`
    /// failure), never with the 401 or the answer each test expects. (A bound on the elapsed time
    /// failed on a machine busy enough to delay every request by more than the bound.)
    private func send(_ form: TestForm, session: Session = .default) async -> DataResponse<User> {
        await Client().request(form, session: session).handled(User.self)
    }

    @Test(
        "A 401 challenge without a credential is an ordinary 401 at once",
        arguments: ["/challenge/basic", "/challenge/digest", "/challenge/bearer"])
    func noCredential(_ path: String) async throws {
        let tag = freshTag()
        let response = await send(try await form(path, tag: tag))
        #expect(response.error?.kind == .unacceptableStatusCode)
        #expect(response.error?.statusCode == 401)
        #expect(response.response?.value(forHTTPHeaderField: "WWW-Authenticate") != nil)
        #expect(try await requestsSeen(tag: tag) == 1)
    }

    @Test("A proxy challenge (407) is an ordinary 407 at once")
    func proxyChallenge() async throws {
        let tag = freshTag()
        let session = Session { $0.credentials.proxy = PasswordCredential(user: "ada", password: "lovelace") }
        let response = await send(try await form("/challenge/proxy", tag: tag), session: session)
        #expect(response.error?.statusCode == 407)
        #expect(response.error?.kind == .unacceptableStatusCode)
    }

    @Test("The session's credential answers a Basic challenge")
    func rightCredential() async throws {
        let tag = freshTag()
        let session = Session {
            $0.credentials.server = PasswordCredential(user: "ada", password: "lovelace")
        }
        let response = await send(try await form("/challenge/basic", tag: tag), session: session)
        #expect(response.value?.user == "ada")
        #expect(try await requestsSeen(tag: tag) == 2)
    }

    @Test("A wrong credential is tried once, then the 401 is delivered")
    func wrongCredential() async throws {
        let tag = freshTag()
        let session = Session { $0.credentials.server = PasswordCredential(user: "ada", password: "wrong") }
        let response = await send(try await form("/challenge/basic", tag: tag), session: session)
        #expect(response.error?.statusCode == 401)
        #expect(try await requestsSeen(tag: tag) == 2)
    }

    @Test("A credential never answers a Digest or Bearer challenge it cannot meet: the 401 comes at once")
    func credentialOnOtherSchemes() async throws {
        let session = Session {
            $0.credentials.server = PasswordCredential(user: "ada", password: "lovelace")
        }
        for path in ["/challenge/digest", "/challenge/bearer"] {
            let response = await send(try await form(path, tag: freshTag()), session: session)
            #expect(response.error?.statusCode == 401)
        }
    }

    @Test("A watched request (event monitor) gets the 401's body too, and the retrier sees the 401")
    func bodyAndRetrier() async throws {
        let tag = freshTag()
        let finished = Counter()
        let session = Session {
            $0.interceptors.eventMonitors = [FinishRecorder { finished.increment() }]
            $0.interceptors.retriers = [RetryPolicy(baseDelay: 0.01, retryableStatusCodes: [401])]
        }
        let response = await send(try await form("/challenge/basic", tag: tag), session: session)
        #expect(response.error?.statusCode == 401)
        #expect(String(decoding: response.data ?? Data(), as: UTF8.self).contains("Authentication required"))
        #expect(try await requestsSeen(tag: tag) == 3)  // the first attempt and two retries
        #expect(finished.count == 1)
    }

    @Test("An AuthenticationInterceptor with a wrong stored credential refreshes once and succeeds")
    func interceptorRefreshes() async throws {
        let tag = freshTag()
        let auth = AuthenticationInterceptor(
            authenticator: BasicAuthenticator(rightPassword: "lovelace"),
            credential: BasicToken(password: "stale"))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        let response = await send(try await form("/challenge/basic", tag: tag), session: session)
        #expect(response.value?.user == "ada")
        #expect(await auth.refreshCount == 1)
        #expect(try await requestsSeen(tag: tag) == 2)
    }
}

/// An event monitor that calls `onFinish` once per finished request.
struct FinishRecorder: EventMonitor {
    let onFinish: @Sendable () -> Void
    func requestDidFinish(_ metrics: RequestMetrics) { onFinish() }
}
