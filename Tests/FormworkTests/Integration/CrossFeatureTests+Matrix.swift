import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A form with a redirect policy of its own (or none).
private struct RedirectingForm: RequestFormable {
    var url: String
    var redirectPolicy: RedirectPolicy?
}

/// What `/cache/resource` answers.
private struct Resource: Decodable, Sendable, Equatable {
    let id: String
    let version: Int
    let hit: Int
}

/// What `/cache/stats` counts for a resource.
private struct CacheCounts: Decodable, Sendable, Equatable {
    let hits: Int
    let notModified: Int
    let conditional: Int
}

/// What `/fault/count` and `/fault/burst` answer.
private struct FaultCount: Decodable, Sendable {
    let requests: Int
}

private struct Burst: Decodable, Sendable {
    let key: String
    let attempt: Int
}

/// Records what a session's event monitors hear, in order, as short lines: `start N` (with
/// `conditional` when it carries `If-None-Match`, and its `Range`), `coalesce N`, `retry N`,
/// `finish` and the outcome (`network`, `cache`, `revalidated`, `cancelled`, `failed`).
private final class HookLog: EventMonitor {
    private let log = Protected([String]())

    var lines: [String] { log.current }
    func count(_ line: String) -> Int { lines.count { $0 == line } }
    var finished: Int { lines.count { $0.hasPrefix("finish") } }

    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        var line = "start \(attempt)"
        if request.value(forHTTPHeaderField: "If-None-Match") != nil { line += " conditional" }
        if let range = request.value(forHTTPHeaderField: "Range") { line += " \(range)" }
        log.withLock { $0.append(line) }
    }

    func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID) {
        log.withLock { $0.append("coalesce \(attempt)") }
    }

    func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int) {
        log.withLock { $0.append("retry \(retryCount)") }
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        let end =
            metrics.error.map { $0.isCancelled ? "cancelled" : "failed" } ?? metrics.source.rawValue
        log.withLock { $0.append("finish \(end)") }
    }

    /// Waits until monitors heard `count` requests end in all (a request's outcome can be read a
    /// moment before its monitors are told).
    func waitForFinishes(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await eventually("\(count) requests reported finished", sourceLocation: sourceLocation) {
            finished >= count
        }
    }
}

/// An update of an event stream as a short name: `e:<id>` for an event, else the connection
/// state's name.
private func updateName(_ update: EventStreamUpdate) -> String {
    switch update {
    case .event(let event): "e:" + event.id
    case .connection(let state): state.name
    }
}

// The pairwise crossings of issue 24 §4 that CrossFeatureTests.swift does not cover: each case
// asserts the body delivered, the outcome, the order of the hooks that ran (what the session's
// event monitors heard, a retrier, a handler) and the requests that reached the demo server
// (its own counters).
extension CrossFeatureTests {
    /// `/redirect` to `target` with `status`.
    private func redirect(to target: String, status: Int = 302) async throws -> String {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return try await DemoServer.url("/redirect?status=\(status)&to=\(encoded)")
    }

    private func cacheCounts(_ id: String) async throws -> CacheCounts {
        let form = CachedForm(
            url: try await DemoServer.url("/cache/stats?id=\(id)"), cachePolicy: .reloadIgnoringCache)
        return try await client.request(form, session: plain).decode(CacheCounts.self)
    }

    private func decoded<T: Decodable>(_ type: T.Type, _ data: Data?) throws -> T {
        try JSONDecoder().decode(type, from: try #require(data))
    }

    // MARK: Redirects

    @Test(
        "Redirect × cache: each hop is stored under its own URL: the response a redirect led to answers the URL asked for again, and its own URL too",
        arguments: [301, 302, 307])
    func redirectAnsweredFromCache(status: Int) async throws {
        let id = "cross-\(UUID().uuidString)"
        let target = try await resource(id, "&cc=max-age=600")
        let asked = try await redirect(to: target, status: status)
        let log = HookLog()
        let session = Session {
            $0.cache = HTTPCache()
            $0.interceptors.eventMonitors = [log]
        }
        let first = await client.request(CachedForm(url: asked), session: session).response()
        await log.waitForFinishes(1)
        let second = await client.request(CachedForm(url: asked), session: session).response()
        await log.waitForFinishes(2)
        #expect(first.error == nil && second.error == nil)
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(try decoded(Resource.self, first.data) == Resource(id: id, version: 1, hit: 1))
        #expect(second.data == first.data, "The stored body, byte for byte")
        #expect(first.response?.url?.path == "/cache/resource", "The response is the target's")
        #expect(try await hits(id) == 1)
        #expect(log.lines == ["start 1", "finish network", "start 1", "finish cache"])
        // The redirect (no freshness of its own) was asked again; the target's response is stored
        // under the target's URL, and answers it directly too.
        let direct = await client.request(CachedForm(url: target), session: session).response()
        #expect(direct.error == nil)
        #expect(direct.source == .cache)
        #expect(try await hits(id) == 1)
    }

    @Test("Redirect × revalidation: a stale response reached through a redirect is revalidated with a 304")
    func redirectRevalidated() async throws {
        let id = "cross-\(UUID().uuidString)"
        let asked = try await redirect(to: try await resource(id, "&cc=max-age=0&etag=1"))
        let log = HookLog()
        let session = Session {
            $0.cache = HTTPCache()
            $0.interceptors.eventMonitors = [log]
        }
        let first = await client.request(CachedForm(url: asked), session: session).response()
        await log.waitForFinishes(1)
        let second = await client.request(CachedForm(url: asked), session: session).response()
        await log.waitForFinishes(2)
        #expect(first.error == nil && second.error == nil)
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(second.response?.statusCode == 200)
        #expect(second.data == first.data)
        #expect(try decoded(Resource.self, second.data).hit == 1, "The stored body, not a new one")
        #expect(try await cacheCounts(id) == CacheCounts(hits: 2, notModified: 1, conditional: 1))
        // The exchange starts with the redirect's unconditional request; the conditional one goes
        // to the target, where the stale response is stored.
        #expect(log.lines == ["start 1", "finish network", "start 1", "finish revalidated"])
    }

    @Test(
        "Redirect × coalescing: identical requests to a redirecting URL share one exchange, redirect and all"
    )
    func redirectCoalesced() async throws {
        let id = "cross-\(UUID().uuidString)"
        let asked = try await redirect(to: try await resource(id))
        // Nothing starts until every request shares the exchange: the flight closes to newcomers
        // at its first event, the redirect.
        let transport = HoldingTransport(.start)
        let log = HookLog()
        let session = Session {
            $0.transport = transport
            $0.interceptors.eventMonitors = [log]
        }
        let requests = (0..<3).map { _ in client.request(CachedForm(url: asked), session: session) }
        let outcomes = requests.map { request in Task { await request.core.outcome() } }
        let address = try #require(URL(string: asked))
        await eventually("the three requests share one exchange") {
            session.coalescer.subscriberCount(url: address) == 3
        }
        #expect(transport.held == 1)
        transport.release()
        var results: [RequestOutcome] = []
        for outcome in outcomes { results.append(await outcome.value) }
        await log.waitForFinishes(3)
        #expect(results.allSatisfy { $0.error == nil })
        let bodies = try results.map { try decoded(Resource.self, $0.data) }
        #expect(bodies == Array(repeating: Resource(id: id, version: 1, hit: 1), count: 3))
        #expect(try await hits(id) == 1)
        #expect(log.count("start 1") == 1)
        #expect(log.count("coalesce 1") == 2)
        #expect(log.count("finish network") == 3)
    }

    @Test(
        "Redirect × coalescing: a form with a redirect policy of its own never shares an exchange (the rule of makeDataRequest)"
    )
    func ownRedirectPolicyNeverCoalesces() async throws {
        let id = "cross-\(UUID().uuidString)"
        let asked = try await redirect(to: try await resource(id))
        let transport = HoldingTransport(.start)
        let log = HookLog()
        let session = Session {
            $0.transport = transport
            $0.interceptors.eventMonitors = [log]
        }
        // Even `.follow`, the default, given by the form: the request may stop at a redirect of
        // its own choosing, so it shares nothing.
        let requests = (0..<3).map { _ in
            client.request(RedirectingForm(url: asked, redirectPolicy: .follow), session: session)
        }
        let outcomes = requests.map { request in Task { await request.core.outcome() } }
        await eventually("three exchanges of their own, each resumed") { transport.resumed == 3 }
        #expect(session.coalescer.openFlightCount == 0)
        transport.release()
        var results: [RequestOutcome] = []
        for outcome in outcomes { results.append(await outcome.value) }
        await log.waitForFinishes(3)
        #expect(results.allSatisfy { $0.error == nil })
        let hitNumbers = try results.map { try decoded(Resource.self, $0.data).hit }
        #expect(hitNumbers.sorted() == [1, 2, 3], "Each request got its own response")
        #expect(try await hits(id) == 3)
        #expect(transport.held == 3)
        #expect(log.count("start 1") == 3 && log.count("coalesce 1") == 0)
        #expect(log.count("finish network") == 3)
    }

    @Test(
        "Redirect × retry: a redirect to a 503 is retried through the redirect; the body is the success's alone"
    )
    func redirectRetried() async throws {
        let key = "cross-\(UUID().uuidString)"
        let target = try await DemoServer.url("/fault/burst?key=\(key)&failures=1&status=503")
        let asked = try await redirect(to: target)
        let log = HookLog()
        let session = Session {
            $0.interceptors.eventMonitors = [log]
            $0.coalescesRequests = false
        }
        let seen = Protected([String]())
        let retrier = Retrier { context in
            let path = context.response?.url?.path ?? "none"
            seen.withLock { $0.append("\(context.response?.statusCode ?? 0) \(path) \(context.retryCount)") }
            return context.retryCount == 0 ? .retry(after: 0) : .doNotRetry
        }
        let outcome = await client.request(CachedForm(url: asked), session: session).retry(retrier).core
            .outcome()
        await log.waitForFinishes(1)
        #expect(outcome.error == nil)
        #expect(outcome.attempt == 2)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.response?.url?.path == "/fault/burst")
        let body = try #require(outcome.data)
        let burst = try JSONDecoder().decode(Burst.self, from: body)
        #expect(burst.key == key && burst.attempt == 2)
        #expect(!String(decoding: body, as: UTF8.self).contains("burst"), "Nothing of the 503's body")
        #expect(seen.current == ["503 /fault/burst 0"], "The retrier is asked once, about the target's 503")
        #expect(log.lines == ["start 1", "retry 1", "start 2", "finish network"])
        let count = CachedForm(url: try await DemoServer.url("/fault/count?key=\(key)"))
        #expect(try await client.request(count, session: plain).decode(FaultCount.self).requests == 2)
    }

    @Test(
        "Redirect × auth refresh: a 401 reached through a same-origin redirect refreshes once and is replayed through the redirect"
    )
    func redirectWithAuthRefresh() async throws {
        let base = try await DemoServer.baseURL()
        let realm = "x\(UUID().uuidString.prefix(8))"
        let auth = AuthenticationInterceptor(
            authenticator: DemoAuthenticator(base: base, realm: realm),
            credential: Token(value: "\(realm)-stale"))
        let log = HookLog()
        let session = Session {
            $0.interceptors.adapters = [auth]
            $0.interceptors.retriers = [auth]
            $0.interceptors.eventMonitors = [log]
        }
        let asked = try await redirect(to: base + "/auth/protected?realm=\(realm)")
        let outcome = await client.request(CachedForm(url: asked), session: session).core.outcome()
        await log.waitForFinishes(1)
        #expect(outcome.error == nil)
        #expect(outcome.attempt == 2)
        #expect(outcome.response?.url?.path == "/auth/protected")
        let body = try decoded(AuthenticationTests.Protected.self, outcome.data)
        #expect(
            body.realm == realm && body.token == "\(realm)-1", "Only the replay's body, with the new token")
        #expect(await auth.refreshCount == 1)
        #expect(log.lines == ["start 1", "retry 1", "start 2", "finish network"])
        // The stale token reached the target once (the redirect kept it: same origin), the new one once.
        let stats = try await client.request(
            TestForm(url: base + "/auth/stats", parameters: ["realm": realm]), session: plain
        )
        .decode(AuthenticationTests.Stats.self)
        #expect(stats.refreshes == 1 && stats.rejected == 1 && stats.accepted == 1)
    }

    // MARK: Downloads and streams

    @Test(
        "Download resume × retry: a cut download is retried with a Range for the rest; the file is byte-exact"
    )
    func downloadResumedByRetry() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 2_000_000
        let cut = size / 2
        let tag = uniqueDownloadTag()
        let log = HookLog()
        let session = Session { $0.interceptors.eventMonitors = [log] }
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=\(cut)&tag=\(tag)"),
            destination: scratch.file("resumed"))
        let request = client.download(form, session: session).retry(
            RetryPolicy(retryLimit: 5, baseDelay: 0.01))
        let file = try await request.fileURL()
        await log.waitForFinishes(1)
        #expect(try await matchesServerFile(file, size: size))
        #expect(try scratch.contents() == ["resumed"])
        let stats = try await TagCounters.read(tag)
        let lines = log.lines
        #expect(lines.first == "start 1", "The first attempt asks for the whole file")
        #expect(lines.last == "finish network")
        if TransportUnderTest.keepsEveryByteBeforeACut {
            // Every byte before the cut was kept: one retry asks for exactly the rest.
            #expect(lines == ["start 1", "retry 1", "start 2 bytes=\(cut)-", "finish network"])
            #expect(stats.requests == 2)
            #expect(stats.bytesSent == size)
        } else {
            // Each cut may drop bytes the transport had buffered, so a resume may be cut again;
            // every attempt after the first still resumes (a Range from where it stands).
            #expect(stats.requests >= 2)
            let starts = lines.filter { $0.hasPrefix("start") }
            #expect(starts.count == stats.requests)
            #expect(starts.dropFirst().allSatisfy { $0.contains("bytes=") && $0.hasSuffix("-") })
        }
    }

    @Test(
        "Stream reconnect × cancel: cancelled while it waits to reconnect, the stream ends cancelled with one connection"
    )
    func streamCancelledWhileWaitingToReconnect() async throws {
        let key = streamKey()
        // Two events, a clean end, then a 30 s wait before the next connection.
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&retry=30000")
        let log = HookLog()
        let session = Session { $0.interceptors.eventMonitors = [log] }
        let request = client.stream(
            TestForm(url: url), session: session, reconnection: StreamReconnection(jitter: 0))
        var names: [String] = []
        var thrown: (any Error)?
        do {
            for try await update in request.updates() {
                names.append(updateName(update))
                if case .connection(.reconnecting) = update {
                    await eventually("the stream waits to reconnect") {
                        request.core.lifecycleState == .retrying
                    }
                    request.cancel()
                }
            }
        } catch {
            thrown = error
        }
        let outcome = await request.core.outcome()
        await log.waitForFinishes(1)
        #expect(outcome.error?.isCancelled == true)
        #expect(request.isCancelled)
        // `updates()` hands over `closed`, then throws the cancellation.
        #expect((thrown as? NetworkError)?.isCancelled == true)
        let events = ids(1...2).map { "e:" + $0 }
        #expect(names == ["connecting", "open"] + events + ["lost", "reconnecting", "closed"])
        #expect(log.lines == ["start 1", "finish cancelled"])
        let stats = try await streamStats(key)
        #expect(stats.connections == 1, "No connection after the cancel")
        #expect(stats.lastEventIDs == [""])
    }

    @Test("Stream reconnect × cancel while adapting: a reconnect cancelled in its adapter sends nothing")
    func streamCancelledWhileAdaptingReconnect() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&retry=10")
        let log = HookLog()
        let session = Session { $0.interceptors.eventMonitors = [log] }
        let adapted = EventCounter()
        let gate = Gate()
        let request = client.stream(TestForm(url: url), session: session)
            .adapt(
                Adapter { request in
                    let count = await MainActor.run {
                        adapted.increment()
                        return adapted.value
                    }
                    if count == 2 { await gate.wait() }  // the reconnect waits here
                    return request
                })
        let events = request.events()
        let reader = Task { () -> (seen: [String], thrown: (any Error)?) in
            var seen: [String] = []
            do {
                for try await event in events { seen.append(event.id) }
            } catch {
                return (seen, error)
            }
            return (seen, nil)
        }
        await adapted.wait(for: 2)
        request.cancel()
        await gate.open()
        let outcome = await request.core.outcome()
        let (seen, thrown) = await reader.value
        await log.waitForFinishes(1)
        #expect(outcome.error?.isCancelled == true)
        #expect(seen == ids(1...2))
        #expect((thrown as? NetworkError)?.isCancelled == true, "The reader sees the cancellation")
        #expect(await MainActor.run { adapted.value } == 2)
        #expect(log.lines == ["start 1", "finish cancelled"], "The reconnect never started")
        let stats = try await streamStats(key)
        #expect(stats.connections == 1)
    }

    // MARK: Cache and cancel

    @Test(
        "SWR × retry × reload: stale answers are successes (no retrier asked); a reload is answered stale too; exactly one background revalidation"
    )
    func staleWhileRevalidateWithRetryAndReload() async throws {
        let id = "cross-\(UUID().uuidString)"
        // Age 150 on a max-age of 120: stale on arrival, within a 600 s window; the 304 makes it
        // fresh for 120 s, so no second revalidation can be due before the test ends.
        let url = try await resource(id, "&cc=max-age=120,stale-while-revalidate=600&etag=1&age=150")
        let session = Session { $0.cache = HTTPCache() }
        let stored = await client.request(CachedForm(url: url), session: session).response()
        #expect(stored.source == .network)
        let asked = Protected(0)
        let retrier = Retrier { _ in
            asked.withLock { $0 += 1 }
            return .retry(after: 0)
        }
        let delivered = Protected([DataResponse<Data?>]())
        let handled = EventCounter()
        let request = client.request(CachedForm(url: url), session: session).retry(retrier)
            .response { response in
                delivered.withLock { $0.append(response) }
                handled.increment()
            }
        await handled.wait(for: 1)
        request.core.restart()
        await handled.wait(for: 2)
        let responses = delivered.current
        #expect(responses.allSatisfy { $0.error == nil && $0.source == .cache })
        #expect(responses.first?.isStale == true)
        #expect(responses.allSatisfy { $0.data == stored.data }, "The stored body each time")
        #expect(asked.current == 0, "Nothing failed: the retrier is not asked")
        await eventually("the background revalidation's 304 arrived", within: 90) {
            (try? await cacheCounts(id).notModified) == 1
        }
        var fresh: DataResponse<Data>?
        await eventually("the refreshed entry answers fresh", within: 90) {
            fresh = await client.request(CachedForm(url: url), session: session).response()
            return fresh?.isStale == false
        }
        #expect(fresh?.source == .cache && fresh?.data == stored.data)
        #expect(try await cacheCounts(id) == CacheCounts(hits: 2, notModified: 1, conditional: 1))
    }

    @Test("Cancel before start: nothing reaches the server, the outcome is cancelled, the handler runs once")
    func cancelBeforeStart() async throws {
        let id = "cross-\(UUID().uuidString)"
        let log = HookLog()
        let session = Session {
            $0.cache = HTTPCache()
            $0.interceptors.eventMonitors = [log]
        }
        // Made in nonisolated code: it waits for a handler, an accessor or `resume()`.
        let request = client.request(
            CachedForm(url: try await resource(id, "&cc=max-age=600")), session: session)
        #expect(request.core.lifecycleState == .initialized)
        request.cancel()
        let first = EventCounter()
        let later = EventCounter()
        let got = Protected([DataResponse<Data?>]())
        request.response { response in
            got.withLock { $0.append(response) }
            first.increment()
        }
        await first.wait(for: 1)
        let outcome = await request.core.outcome()
        #expect(outcome.error?.isCancelled == true)
        #expect(outcome.request == nil, "Nothing was sent")
        #expect(outcome.data == nil)
        #expect(got.current.first?.error?.isCancelled == true)
        // Handlers run in the order chained: had the first one run twice, it would have by now.
        request.response { _ in later.increment() }
        await later.wait(for: 1)
        #expect(await MainActor.run { first.value } == 1)
        #expect(!log.lines.contains { $0.hasPrefix("start") || $0.hasPrefix("coalesce") })
        #expect(try await hits(id) == 0)
        // Nothing was stored either: the next request goes to the server.
        let next = await client.request(
            CachedForm(url: try await resource(id, "&cc=max-age=600")), session: session
        )
        .response()
        #expect(next.source == .network)
        #expect(try await hits(id) == 1)
    }

    @Test(
        "Cancel in flight × revalidation: cancelled before its answer arrives, the stored entry is left as it was"
    )
    func cancelDuringRevalidation() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=0&etag=1")
        // The conditional request reaches the server; what it answers is held back from Formwork.
        let transport = HoldingTransport(.events) { $0.value(forHTTPHeaderField: "If-None-Match") != nil }
        let log = HookLog()
        let session = Session {
            $0.cache = HTTPCache()
            $0.transport = transport
            $0.interceptors.eventMonitors = [log]
        }
        let stored = await client.request(CachedForm(url: url), session: session).response()
        await log.waitForFinishes(1)
        #expect(stored.source == .network)
        // The resource changes: the revalidation is answered with a new body (200, version 2).
        let change = CachedForm(url: url, method: .post, cachePolicy: .reloadIgnoringCache)
        _ = try await client.request(change, session: plain).data()
        let handled = EventCounter()
        let request = client.request(CachedForm(url: url), session: session)
            .response { _ in handled.increment() }
        await eventually("the server answered the revalidation") { transport.ended == 1 }
        #expect(request.core.lifecycleState == .running)
        request.cancel()
        transport.release()
        let outcome = await request.core.outcome()
        await handled.wait(for: 1)
        await log.waitForFinishes(2)
        #expect(outcome.error?.isCancelled == true)
        #expect(log.lines == ["start 1", "finish network", "start 1 conditional", "finish cancelled"])
        #expect(try await cacheCounts(id) == CacheCounts(hits: 2, notModified: 0, conditional: 1))
        // The stored entry is the one from before: version 1, the first hit.
        let kept = await client.request(CachedForm(url: url, cachePolicy: .cacheOnly), session: session)
            .response()
        #expect(kept.error == nil)
        #expect(kept.source == .cache)
        #expect(kept.data == stored.data)
        #expect(try decoded(Resource.self, kept.data) == Resource(id: id, version: 1, hit: 1))
        #expect(await MainActor.run { handled.value } == 1)
    }

    @Test(
        "Cache × coalescing: identical cacheable requests with nothing stored share one exchange; the next is answered from the cache"
    )
    func coalescedIntoAnEmptyCache() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=600")
        // The server answers at once; Formwork hears it only once every request shares the exchange.
        let transport = HoldingTransport(.events)
        let log = HookLog()
        let session = Session {
            $0.cache = HTTPCache()
            $0.transport = transport
            $0.interceptors.eventMonitors = [log]
        }
        let requests = (0..<4).map { _ in client.request(CachedForm(url: url), session: session) }
        let outcomes = requests.map { request in Task { await request.core.outcome() } }
        let address = try #require(URL(string: url))
        await eventually("the four requests share one exchange") {
            session.coalescer.subscriberCount(url: address) == 4
        }
        await eventually("the server answered it") { transport.ended == 1 }
        transport.release()
        var results: [RequestOutcome] = []
        for outcome in outcomes { results.append(await outcome.value) }
        await log.waitForFinishes(4)
        #expect(results.allSatisfy { $0.error == nil && $0.cache.source == .network })
        let bodies = try results.map { try decoded(Resource.self, $0.data) }
        #expect(bodies == Array(repeating: Resource(id: id, version: 1, hit: 1), count: 4))
        #expect(transport.held == 1)
        #expect(try await hits(id) == 1)
        #expect(log.count("start 1") == 1 && log.count("coalesce 1") == 3)
        #expect(log.count("finish network") == 4)
        let next = await client.request(CachedForm(url: url), session: session).response()
        await log.waitForFinishes(5)
        #expect(next.error == nil)
        #expect(next.source == .cache)
        #expect(next.data == results.first?.data)
        #expect(try await hits(id) == 1)
        #expect(Array(log.lines.suffix(2)) == ["start 1", "finish cache"])
    }
}
