import Formwork
import FormworkOpenAPI
import FormworkTestSupport
import Foundation
import OpenAPIRuntime
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a session's monitor heard: every finished request, and the requests that shared
/// another's network request.
private final class Recorder: EventMonitor, @unchecked Sendable {  // state behind `lock`
    private let lock = NSLock()
    private var finishedMetrics: [RequestMetrics] = []
    private var coalescedCount = 0

    var finished: [RequestMetrics] { lock.withLock { finishedMetrics } }
    var coalesced: Int { lock.withLock { coalescedCount } }

    func requestDidFinish(_ metrics: RequestMetrics) {
        lock.withLock { finishedMetrics.append(metrics) }
    }

    func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID) {
        lock.withLock { coalescedCount += 1 }
    }
}

/// A bearer token of one of the demo server's `/auth` realms; a realm's first token is `<realm>-0`.
private struct RealmToken: AuthenticationCredential {
    let value: String
    var requiresRefresh: Bool { false }  // expiry is learnt from the server's 401
}

/// Puts the token in `Authorization` and refreshes it with the demo server's `/auth/refresh`
/// (a Formwork request of its own, outside the session it authenticates).
private struct RealmAuthenticator: Authenticator {
    let base: String
    let realm: String
    var failsRefresh = false

    func apply(_ credential: RealmToken, to request: inout OutgoingRequest) {
        request.headers["Authorization"] = "Bearer \(credential.value)"
    }

    func refresh(_ credential: RealmToken) async throws -> RealmToken {
        struct Refreshed: Decodable, Sendable { let token: String }
        struct RefreshForm: RequestFormable {
            let url: String
            var method: Formwork.HTTPMethod { .post }
        }
        let url = "\(base)/auth/refresh?realm=\(realm)" + (failsRefresh ? "&fail=1" : "")
        return RealmToken(
            value: try await Session.default.request(RefreshForm(url: url)).decode(Refreshed.self).token)
    }

    func isRequest(_ request: URLRequest, authenticatedWith credential: RealmToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.value)"
    }
}

/// The generated client (Generated/, from openapi.yaml) over `FormworkClientTransport`, against
/// the demo server: what the operations return, and what the session under them adds (its cache,
/// coalescing and retries).
@Suite("OpenAPI client over FormworkClientTransport", .timeLimit(.minutes(2)))
struct ClientTransportTests {
    /// A generated client on `session`, for the demo server.
    private func client(
        _ session: Session, prepare: (@Sendable (DataRequest, String) -> Void)? = nil
    ) async throws -> Client {
        let serverURL = try #require(URL(string: try await DemoServer.baseURL()))
        return Client(
            serverURL: serverURL, transport: FormworkClientTransport(session: session, prepare: prepare))
    }

    private func newKey() -> String { "openapi-\(UUID().uuidString)" }

    @Test("A GET's JSON is decoded by the generated client; a documented 400 is returned")
    func getDecoded() async throws {
        let client = try await client(Session())
        let weather = try await client.getWeather(query: .init(city: "Paris")).ok.body.json
        #expect(weather.data.city == "Paris")
        #expect(weather.data.code == "200")
        #expect(weather.data.temperature == 23.5)
        let missing = try await client.getWeather(query: .init()).badRequest.body.json
        #expect(missing.data.message == "Missing city")
    }

    @Test("A POST sends its JSON body and content type")
    func postWithBody() async throws {
        let client = try await client(Session())
        let note = Components.Schemas.Note(title: "Formwork", tags: ["openapi", "transport"])
        let reply = try await client.echoNote(body: .json(note)).ok.body.json
        #expect(reply.method == "POST")
        #expect(reply.path == "/echo")
        #expect(reply.json == note)
        #expect(reply.contentType?.hasPrefix("application/json") == true)
        #expect(reply.bodyLength > 0)
    }

    @Test("A 404 comes back as its documented response and an unknown status as undocumented, not thrown")
    func nonSuccessReturned() async throws {
        let recorder = Recorder()
        let client = try await client(Session { $0.interceptors.eventMonitors = [recorder] })
        switch try await client.getStatus(path: .init(code: 404)) {
        case .notFound(let notFound):
            #expect(try notFound.body.json.status == 404)
        default:
            Issue.record("expected the documented 404")
        }
        switch try await client.getStatus(path: .init(code: 418)) {
        case .undocumented(let statusCode, _):
            #expect(statusCode == 418)
        default:
            Issue.record("expected an undocumented 418")
        }
        // Formwork accepted both statuses: no request failed inside the session either.
        #expect(recorder.finished.map(\.error).allSatisfy { $0 == nil })
        #expect(recorder.finished.compactMap(\.response?.statusCode) == [404, 418])
    }

    @Test("A cacheable response is served by the session's HTTPCache: the server sees one request")
    func cached() async throws {
        let recorder = Recorder()
        let client = try await client(
            Session { configuration in
                configuration.cache = HTTPCache()
                configuration.interceptors.eventMonitors = [recorder]
            })
        let id = newKey()
        let query = Operations.GetCachedResource.Input.Query(id: id, cc: "max-age=60")
        let first = try await client.getCachedResource(query: query).ok.body.json
        let second = try await client.getCachedResource(query: query).ok.body.json
        #expect(first.hit == 1 && second.hit == 1)
        #expect(try await client.getCacheStats(query: .init(id: id)).ok.body.json.hits == 1)
        #expect(recorder.finished.prefix(2).map(\.source) == [.network, .cache])
    }

    @Test("Identical GETs in flight share one network request: the server sees one")
    func coalesced() async throws {
        let callers = 5
        let recorder = Recorder()
        let client = try await client(Session { $0.interceptors.eventMonitors = [recorder] })
        let key = newKey()
        let held = (0..<callers).map { _ in
            Task { try await client.getHeld(query: .init(key: key)).ok.body.json }
        }
        // The server holds the first request until released: wait until the others have joined it.
        let deadline = Date().addingTimeInterval(30)
        while recorder.coalesced < callers - 1, Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(recorder.coalesced == callers - 1)
        #expect(try await client.getHeldHits(query: .init(key: key, atLeast: 1)).ok.body.json.hits == 1)
        _ = try await client.releaseHeld(query: .init(key: key)).ok
        var hits: [Int] = []
        for task in held { hits.append(try await task.value.hit) }
        #expect(hits == Array(repeating: 1, count: callers))
        #expect(try await client.getHeldHits(query: .init(key: key, atLeast: 1)).ok.body.json.hits == 1)
    }

    @Test("A 503 is retried by the session's RetryPolicy until the operation succeeds")
    func retriedUntilSuccess() async throws {
        let client = try await client(
            Session { $0.interceptors.retriers = [RetryPolicy(retryLimit: 2, baseDelay: 0.01)] })
        let ok = try await client.getBurst(query: .init(key: newKey(), failures: 2)).ok.body.json
        #expect(ok.attempt == 3)
    }

    @Test("A 503 that outlasts the retries (chained per operation) is returned as its documented response")
    func retriesExhausted() async throws {
        let client = try await client(Session()) { request, operationID in
            if operationID == "getBurst" { request.retry(RetryPolicy(retryLimit: 1, baseDelay: 0.01)) }
        }
        let failure = try await client.getBurst(query: .init(key: newKey(), failures: 5)).serviceUnavailable
        #expect(try failure.body.json.attempt == 2)
    }

    /// A session whose `AuthenticationInterceptor` starts with an expired token of `realm`.
    private func authenticatedSession(
        realm: String, failsRefresh: Bool = false
    ) async throws -> (Session, AuthenticationInterceptor<RealmAuthenticator>) {
        let base = try await DemoServer.baseURL()
        let auth = AuthenticationInterceptor(
            authenticator: RealmAuthenticator(base: base, realm: realm, failsRefresh: failsRefresh),
            credential: RealmToken(value: "\(realm)-expired"))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        return (session, auth)
    }

    @Test(
        "An expired token: the session's authenticator refreshes it once on the 401, and the operation succeeds"
    )
    func authRefresh() async throws {
        let realm = newKey()
        let (session, auth) = try await authenticatedSession(realm: realm)
        let client = try await client(session)
        let reply = try await client.getProtected(query: .init(realm: realm)).ok.body.json
        #expect(reply.realm == realm)
        #expect(reply.token == "\(realm)-1")  // the refreshed token, replayed
        #expect(await auth.refreshCount == 1)
        var stats = try await client.getAuthStats(query: .init(realm: realm)).ok.body.json
        #expect(stats.refreshes == 1)
        #expect(stats.rejected == 1)  // the expired token, once
        #expect(stats.accepted == 1)
        // The next operation carries the new token from the start: no 401, no refresh.
        #expect(try await client.getProtected(query: .init(realm: realm)).ok.body.json.token == "\(realm)-1")
        #expect(await auth.refreshCount == 1)
        stats = try await client.getAuthStats(query: .init(realm: realm)).ok.body.json
        #expect(stats.refreshes == 1 && stats.rejected == 1 && stats.accepted == 2)
    }

    @Test("A refresh that fails leaves the 401, returned to the client as its documented response")
    func authRefreshFails() async throws {
        let realm = newKey()
        let (session, auth) = try await authenticatedSession(realm: realm, failsRefresh: true)
        let client = try await client(session)
        let problem = try await client.getProtected(query: .init(realm: realm)).unauthorized.body.json
        #expect(problem.code == "401")
        #expect(await auth.refreshCount == 1)  // tried once
        let stats = try await client.getAuthStats(query: .init(realm: realm)).ok.body.json
        #expect(stats.refreshes == 0 && stats.rejected == 1 && stats.accepted == 0)
    }

    @Test("No server: the transport failure is thrown as a NetworkError inside the client's error")
    func transportFailure() async throws {
        let port = try UnusedPort.find()
        let serverURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let client = Client(serverURL: serverURL, transport: FormworkClientTransport(session: Session()))
        do {
            _ = try await client.getWeather(query: .init(city: "Paris"))
            Issue.record("expected a thrown error")
        } catch let error as ClientError {
            #expect(error.operationID == "getWeather")
            let underlying = try #require(error.underlyingError as? NetworkError)
            #expect(underlying.kind == .transport)
            #expect(underlying.isNetworkFailure)
        }
    }
}
