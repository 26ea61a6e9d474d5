import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Features crossed pairwise against the demo server (issue 24 §4): each case names what it
/// crosses and asserts the body delivered, the outcome and what reached the server.
@Suite("Features crossed against the demo server")
struct CrossFeatureTests {
    /// The transport under test is in place before any request.
    private let transport = TransportUnderTest.installed
    let client = Client()
    /// Asks the server for switches and counts, never through a cache.
    let plain = Session { $0.coalescesRequests = false }

    func resource(_ id: String, _ query: String = "") async throws -> String {
        try await DemoServer.url("/cache/resource?id=\(id)\(query)")
    }

    func switchResource(_ id: String, failing status: Int) async throws {
        let form = CachedForm(
            url: try await DemoServer.url("/cache/switch?id=\(id)&fail=\(status)"), method: .post,
            cachePolicy: .reloadIgnoringCache)
        _ = try await client.request(form, session: plain).data()
    }

    @Test(
        "Retry × cache: a retry answered from the cache delivers the cached body alone, not the failed attempt's"
    )
    func retryAnsweredFromCache() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=600")
        let session = Session { $0.cache = HTTPCache() }
        try await switchResource(id, failing: 503)
        let stored = Protected(Data())
        // Before the retry, the resource recovers and another request stores a fresh response:
        // the retry is answered from the cache.
        let retrier = Retrier { context in
            guard context.retryCount == 0 else { return .doNotRetry }
            do {
                try await switchResource(id, failing: 0)
                let fresh = try await client.request(CachedForm(url: url), session: session).data()
                stored.withLock { $0 = fresh }
                return .retry(after: 0)
            } catch {
                Issue.record("The request that stores a fresh response failed: \(error)")
                return .doNotRetry
            }
        }
        let request = client.request(CachedForm(url: url), session: session).retry(retrier)
        let outcome = await request.core.outcome()
        #expect(outcome.error == nil)
        #expect(outcome.attempt == 2)
        #expect(outcome.cache.source == .cache)
        #expect(!stored.withLock { $0 }.isEmpty)
        #expect(outcome.data == stored.withLock { $0 }, "The body is the cached one alone")
    }

    /// What `/cache/stats` counts for a resource.
    private struct Stats: Decodable, Sendable {
        let hits: Int
    }

    func hits(_ id: String) async throws -> Int {
        let form = CachedForm(
            url: try await DemoServer.url("/cache/stats?id=\(id)"), cachePolicy: .reloadIgnoringCache)
        return try await client.request(form, session: plain).decode(Stats.self).hits
    }

    @Test(
        "Reload × cache: a reload through the same handler is answered from the cache, the server sees one request"
    )
    func reloadAnsweredFromCache() async throws {
        let id = "cross-\(UUID().uuidString)"
        let session = Session { $0.cache = HTTPCache() }
        let delivered = Protected([DataResponse<Data?>]())
        let handled = EventCounter()
        let request = client.request(
            CachedForm(url: try await resource(id, "&cc=max-age=600")), session: session
        )
        .response { response in
            delivered.withLock { $0.append(response) }
            handled.increment()
        }
        await handled.wait(for: 1)
        request.core.restart()
        await handled.wait(for: 2)
        let responses = delivered.withLock { $0 }
        #expect(responses.map(\.source) == [.network, .cache])
        #expect(responses.allSatisfy { $0.error == nil })
        #expect(Set(responses.map(\.data)).count == 1, "The cached body is the network's, byte for byte")
        #expect(try await hits(id) == 1)
    }

    @Test(
        "Cancel × retry wait × cache: a request cancelled while it waits to retry ends cancelled, with nothing stored"
    )
    func cancelInRetryWait() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=600")
        let session = Session { $0.cache = HTTPCache() }
        try await switchResource(id, failing: 503)
        let waiting = EventCounter()
        let retrier = Retrier { _ in
            await MainActor.run { waiting.increment() }
            return .retry(after: 600)
        }
        let request = client.request(CachedForm(url: url), session: session).retry(retrier)
        let outcome = Task { await request.core.outcome() }
        await waiting.wait(for: 1)
        await eventually("the request waits to retry") { request.core.lifecycleState == .retrying }
        request.cancel()
        let ended = await outcome.value
        #expect(ended.error?.isCancelled == true)
        #expect(ended.attempt == 1)
        // The failed attempt's response stays on the outcome; nothing was stored for the URL.
        #expect(ended.response?.statusCode == 503)
        try await switchResource(id, failing: 0)
        let next = await client.request(CachedForm(url: url), session: session).core.outcome()
        #expect(next.cache.source == .network)
        #expect(try await hits(id) == 2)
    }

    @Test(
        "Coalescing × cancel × cache: one of three identical callers cancels; the others get the body, the server one request"
    )
    func coalescedCallerCancels() async throws {
        let key = "cross-\(UUID().uuidString)"
        let form = CachedForm(url: try await DemoServer.url("/coalesce/held?key=\(key)"))
        let session = Session { $0.cache = HTTPCache() }
        let requests = (0..<3).map { _ in client.request(form, session: session) }
        let outcomes = requests.map { request in Task { await request.core.outcome() } }
        // Each request's task is the cache layer's, made before its lookup: wait until all three
        // joined the shared exchange, so the cancel is one of a coalesced caller.
        let address = try #require(URL(string: form.url))
        await eventually("the three requests share one network request") {
            session.coalescer.subscriberCount(url: address) == 3
        }
        requests[1].cancel()
        let release = CachedForm(
            url: try await DemoServer.url("/coalesce/release?key=\(key)"), cachePolicy: .reloadIgnoringCache)
        _ = try await client.request(release, session: plain).data()
        let results = await [outcomes[0].value, outcomes[1].value, outcomes[2].value]
        #expect(results[1].error?.isCancelled == true)
        #expect(results[0].error == nil && results[2].error == nil)
        #expect(results[0].data == results[2].data && results[0].data?.isEmpty == false)
        let hitsForm = CachedForm(
            url: try await DemoServer.url("/coalesce/hits?key=\(key)&atLeast=1&wait=5"),
            cachePolicy: .reloadIgnoringCache)
        let counted = try await client.request(hitsForm, session: plain).decode(HeldHits.self)
        #expect(counted.hits == 1)
    }

    @Test("Retry × stale-if-error: a 500 answered with the stale stored response is not retried")
    func staleIfErrorIsNotRetried() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=10,stale-if-error=600&age=20")
        let session = Session { $0.cache = HTTPCache() }
        let stored = await client.request(CachedForm(url: url), session: session).core.outcome()
        #expect(stored.error == nil)
        try await switchResource(id, failing: 500)
        let asked = Protected(0)
        let retrier = Retrier { _ in
            asked.withLock { $0 += 1 }
            return .retry(after: 0)
        }
        let outcome = await client.request(CachedForm(url: url), session: session).retry(retrier).core
            .outcome()
        #expect(outcome.error == nil)
        #expect(outcome.cache.source == .cache && outcome.cache.isStale)
        #expect(outcome.data == stored.data)
        #expect(asked.withLock { $0 } == 0, "Nothing failed: the retriers are not asked")
        #expect(try await hits(id) == 2)
    }

    @Test("Cancel while adapting × coalescing: the request ends cancelled and nothing reaches the server")
    func cancelWhileAdapting() async throws {
        let key = "cross-\(UUID().uuidString)"
        let form = CachedForm(url: try await DemoServer.url("/coalesce/held?key=\(key)"))
        let adapting = EventCounter()
        let gate = Gate()
        let request = client.request(form, session: .default)
            .adapt(
                Adapter { request in
                    await MainActor.run { adapting.increment() }
                    await gate.wait()
                    return request
                })
        let outcome = Task { await request.core.outcome() }
        request.resume()
        await adapting.wait(for: 1)
        request.cancel()
        await gate.open()
        let ended = await outcome.value
        #expect(ended.error?.isCancelled == true)
        #expect(ended.request == nil, "Nothing was sent")
        let hitsForm = CachedForm(
            url: try await DemoServer.url("/coalesce/hits?key=\(key)&atLeast=1&wait=1"),
            cachePolicy: .reloadIgnoringCache)
        #expect(try await client.request(hitsForm, session: plain).decode(HeldHits.self).hits == 0)
    }

    @Test("Cancel after the end: the outcome stays, and no handler runs again")
    func cancelAfterTheEnd() async throws {
        let first = EventCounter()
        let later = EventCounter()
        let request = client.request(CachedForm(url: try await DemoServer.url("/json/array")), session: plain)
            .response { _ in first.increment() }
        await first.wait(for: 1)
        request.cancel()
        let outcome = await request.core.outcome()
        #expect(outcome.error == nil)
        #expect(!request.isCancelled)
        // A handler chained now runs once, with the same outcome; handlers run in the order
        // chained, so a second run of the first one would come before it.
        request.response { response in
            #expect(response.error == nil)
            later.increment()
        }
        await later.wait(for: 1)
        let firstRuns = await MainActor.run { first.value }
        #expect(firstRuns == 1)
    }

    @Test(
        "Auth refresh × coalescing: identical requests that share a 401 refresh once, and every one succeeds")
    func authRefreshWhileCoalesced() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "x\(UUID().uuidString.prefix(8))"
        let auth = AuthenticationInterceptor(
            authenticator: DemoAuthenticator(base: base, realm: realm),
            credential: Token(value: "\(realm)-stale"))
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let form = TestForm(url: base + "/auth/protected", parameters: ["realm": realm])
                    return try await Client().request(form, session: session)
                        .decode(AuthenticationTests.Protected.self).token
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "\(realm)-1", count: 20))
        #expect(await auth.refreshCount == 1)
        let stats = try await Client().request(
            TestForm(url: base + "/auth/stats", parameters: ["realm": realm])
        )
        .decode(AuthenticationTests.Stats.self)
        #expect(stats.refreshes == 1)
        #expect(stats.accepted >= 1 && stats.accepted <= 20)
    }
}
