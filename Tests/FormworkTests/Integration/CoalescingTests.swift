import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `/coalesce/held` answers.
private struct Held: Decodable, Sendable {
    let key: String
    let hit: Int
    let method: String
}

/// What `/coalesce/hits` and `/coalesce/closed` answer.
private struct ServerCount: Decodable, Sendable {
    let hits: Int
    let closed: Int
}

/// A form that must reach the server each time.
private struct UncoalescedForm: RequestFormable {
    let url: String
    var coalescesRequests: Bool { false }
}

/// Records what monitors hear, from any thread.
private final class CoalescingMonitor: EventMonitor {
    struct Events {
        var started: [UUID] = []
        var coalesced: [(id: UUID, leader: UUID)] = []
        var finished: [RequestMetrics] = []
    }
    let events = Protected(Events())

    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        events.withLock { $0.started.append(id) }
    }
    func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID) {
        events.withLock { $0.coalesced.append((id, leaderID)) }
    }
    func requestDidFinish(_ metrics: RequestMetrics) {
        events.withLock { $0.finished.append(metrics) }
    }
}

/// Coalescing of identical requests in flight (issue 14 §2), against the demo server's
/// `/coalesce/held`, which answers only when the test releases the key: the test, not a timer,
/// decides how long the requests are in flight.
@Suite("Coalescing", .timeLimit(.minutes(3)))
struct CoalescingTests {
    let client = Client()

    private func newKey() -> String { "k-\(UUID().uuidString)" }

    private func heldURL(_ key: String) async throws -> String {
        try await DemoServer.url("/coalesce/held?key=\(key)")
    }

    /// Hits and closed connections for `key`, once `count` of `what` were seen (or after the
    /// server's bounded wait, so a wrong count fails the test instead of hanging it).
    private func serverCount(_ key: String, _ what: String = "hits", atLeast count: Int = 1) async throws
        -> ServerCount
    {
        let url = try await DemoServer.url("/coalesce/\(what)?key=\(key)&atLeast=\(count)&wait=20")
        return try await client.request(UncoalescedForm(url: url)).decode(ServerCount.self)
    }

    private func release(_ key: String) async throws {
        _ = try await client.request(
            UncoalescedForm(url: try await DemoServer.url("/coalesce/release?key=\(key)"))
        )
        .data()
    }

    /// Waits (bounded) until `count` requests share the open network request to `url`.
    private func waitUntilShared(
        by count: Int, url: String, in session: Session, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let target = try #require(URL(string: url))
        let deadline = Date().addingTimeInterval(60)
        while session.coalescer.subscriberCount(url: target) < count {
            guard Date() < deadline else {
                Issue.record(
                    "Only \(session.coalescer.subscriberCount(url: target)) of \(count) requests joined",
                    sourceLocation: sourceLocation)
                return
            }
            await sleep(seconds: 0.005)
        }
    }

    @Test("100 identical requests in flight: the server sees one, all 100 get the body")
    func hundredShareOne() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = Session()
        let requests = (0..<100).map { _ in client.request(TestForm(url: url), session: session).resume() }
        try await waitUntilShared(by: 100, url: url, in: session)
        #expect(try await serverCount(key).hits == 1)
        try await release(key)
        let bodies = try await withThrowingTaskGroup(of: Held.self) { group in
            for request in requests { group.addTask { try await request.decode(Held.self) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 100)
        #expect(bodies.allSatisfy { $0.key == key && $0.hit == 1 })
        #expect(try await serverCount(key).hits == 1)
        #expect(session.coalescer.openFlightCount == 0)
        #expect(session.routedTaskCount == 0)
    }

    @Test(
        "Cancelling the request that started the network request: the other 99 succeed, it reports cancellation"
    )
    func cancelOne() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = Session()
        let leader = client.request(TestForm(url: url), session: session).resume()
        try await waitUntilShared(by: 1, url: url, in: session)
        let followers = (0..<99).map { _ in client.request(TestForm(url: url), session: session).resume() }
        try await waitUntilShared(by: 100, url: url, in: session)
        leader.cancel()
        try await release(key)
        let error = await #expect(throws: NetworkError.self) { _ = try await leader.data() }
        #expect(error?.isCancelled == true)
        let bodies = try await withThrowingTaskGroup(of: Held.self) { group in
            for request in followers { group.addTask { try await request.decode(Held.self) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 99)
        #expect(bodies.allSatisfy { $0.hit == 1 })
        let count = try await serverCount(key)
        #expect(count.hits == 1)
        #expect(count.closed == 0)
    }

    @Test("Every caller cancelled: the network request is cancelled, the server sees its connection close")
    func cancelAll() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = Session()
        let requests = (0..<10).map { _ in client.request(TestForm(url: url), session: session).resume() }
        try await waitUntilShared(by: 10, url: url, in: session)
        #expect(try await serverCount(key).hits == 1)
        for request in requests { request.cancel() }
        for request in requests {
            let error = await #expect(throws: NetworkError.self) { _ = try await request.data() }
            #expect(error?.isCancelled == true)
        }
        let count = try await serverCount(key, "closed")
        #expect(count.closed == 1)
        #expect(count.hits == 1)
        #expect(session.coalescer.openFlightCount == 0)
        #expect(session.routedTaskCount == 0)
    }

    @Test(
        "Not coalesced: other headers, another method, the form's or the session's opt-out, POST",
        arguments: ["header", "method", "form opt-out", "session opt-out", "post"])
    func notCoalesced(variant: String) async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = variant == "session opt-out" ? Session { $0.coalescesRequests = false } : Session()
        func send(_ index: Int) -> DataRequest {
            switch variant {
            case "header":
                client.request(TestForm(url: url, headers: ["X-Variant": "\(index)"]), session: session)
            case "method":
                client.request(TestForm(url: url, method: index == 0 ? .get : .head), session: session)
            case "form opt-out":
                client.request(UncoalescedForm(url: url), session: session)
            case "post":
                client.request(TestForm(url: url, method: .post), session: session)
            default:
                client.request(TestForm(url: url), session: session)
            }
        }
        let first = send(0).resume()
        #expect(try await serverCount(key, atLeast: 1).hits == 1)
        let second = send(1).resume()
        // The second request reaches the server on its own (a coalesced one never would).
        #expect(try await serverCount(key, atLeast: 2).hits == 2)
        try await release(key)
        _ = try await first.data()
        _ = try await second.data()
        let hits = Set(
            [first, second].compactMap { $0.response?.value(forHTTPHeaderField: "X-Coalesce-Hit") })
        #expect(hits == ["1", "2"])
    }

    @Test("Each caller's load hook begins and ends on its own control")
    @MainActor
    func loadPerCaller() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = Session()
        let controls = (0..<5).map { _ in Headless.Control() }
        let ended = EventCounter()
        for control in controls {
            client.request(TestForm(url: url), session: session).load(control).response { _ in
                ended.increment()
            }
        }
        #expect(controls.allSatisfy { !$0.isEnabled })
        try await waitUntilShared(by: 5, url: url, in: session)
        try await release(key)
        await ended.wait(for: 5)
        #expect(controls.allSatisfy { $0.isEnabled })
        #expect(try await serverCount(key).hits == 1)
    }

    @Test("Each caller validates and decodes on its own: a struct, text, a key path, a stricter status range")
    func ownDecodingAndValidation() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let session = Session()
        let structured = client.request(TestForm(url: url), session: session).resume()
        let text = client.request(TestForm(url: url), session: session).resume()
        let atKeyPath = client.request(TestForm(url: url), session: session).resume()
        let strict = client.request(TestForm(url: url), session: session).validate(statusCode: [201]).resume()
        try await waitUntilShared(by: 4, url: url, in: session)
        try await release(key)
        #expect(try await structured.decode(Held.self).key == key)
        #expect(try await text.string().contains("\"key\":\"\(key)\""))
        #expect(try await atKeyPath.decode(String.self, atKeyPath: "key") == key)
        let error = await #expect(throws: NetworkError.self) { _ = try await strict.data() }
        #expect(error?.response?.statusCode == 200)
        #expect(error?.isCancelled == false)
        #expect(try await serverCount(key).hits == 1)
    }

    @Test("Monitors see one network request started and every logical request, each finishing on its own")
    func monitors() async throws {
        let key = newKey()
        let url = try await heldURL(key)
        let monitor = CoalescingMonitor()
        let lines = Protected([String]())
        let logger = ConsoleLogger { line in lines.withLock { $0.append(line) } }
        let session = Session { $0.interceptors.eventMonitors = [monitor, logger] }
        let requests = (0..<5).map { _ in client.request(TestForm(url: url), session: session).resume() }
        try await waitUntilShared(by: 5, url: url, in: session)
        try await release(key)
        for request in requests { _ = try await request.decode(Held.self) }
        let events = monitor.events.current
        #expect(events.started.count == 1)
        #expect(events.coalesced.count == 4)
        #expect(events.coalesced.allSatisfy { $0.leader == events.started.first })
        #expect(Set(events.coalesced.map(\.id) + events.started) == Set(requests.map(\.id)))
        #expect(events.finished.count == 5)
        #expect(events.finished.allSatisfy { $0.error == nil && $0.response?.statusCode == 200 })
        let logged = lines.current
        #expect(logged.filter { $0.hasPrefix("→ GET") }.count == 1)
        #expect(logged.filter { $0.hasPrefix("⇢ GET") && $0.contains("shares the request") }.count == 4)
        #expect(logged.filter { $0.hasPrefix("← 200 GET") }.count == 5)
        #expect(try await serverCount(key).hits == 1)
    }
}
