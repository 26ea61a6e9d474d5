import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A `POST` the demo server applies once per `Idempotency-Key` (`/idempotency/apply`).
struct ApplyForm: RequestFormable {
    let url: String
    let note: String
    var method: HTTPMethod { .post }
    var parameters: Parameters { ["note": note] }
    var encoding: ParameterEncoding { .json }
}

/// Reads `/idempotency/apply`'s answer: a first application (`count` 1) is a success.
struct ApplyError: JSONErrorable {
    static let envelope = Envelope(codePath: "count", successCodes: ["1"])
    let code: String?
    let message: String?
}

/// A file upload (`POST /echo`).
struct EchoFileForm: UploadFileFormable {
    let url: String
    let fileURL: URL
}

/// A multipart upload of a text field and a file (`POST /upload`), built in a file above
/// `threshold` bytes.
struct OutboxMultipartForm: UploadMultipartFormable {
    let url: String
    let file: URL
    let threshold: Int
    var encodingMemoryThreshold: Int { threshold }
    var multipartFormData: MultipartFormData {
        var form = MultipartFormData()
        form.append(Data("42".utf8), name: "userID")
        form.append(file, name: "photo")
        return form
    }
}

/// The network as the tests switch it: while `offline`, every request goes to a port where
/// nothing listens (the connection is refused, as with no network); otherwise to the demo server.
final class NetworkSwitch: Sendable {
    private let offline: Protected<Bool>
    let closedPort: Int

    init(offline: Bool) throws {
        self.offline = Protected(offline)
        closedPort = try UnusedPort.find()
    }

    var isOffline: Bool {
        get { offline.withLock { $0 } }
        set { offline.withLock { $0 = newValue } }
    }

    /// The adapter that sends requests nowhere while offline.
    var adapter: Adapter {
        Adapter { [self] request in
            guard isOffline, let url = request.url,
                var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { return request }
            parts.port = closedPort
            var moved = request
            moved.url = parts.url
            return moved
        }
    }
}

/// A fresh directory for one outbox, removed by `remove()`. Making one puts the transport under
/// test in place (see `TransportUnderTest`): these suites also run over AsyncHTTPClient.
struct OutboxDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")

    init() {
        _ = TransportUnderTest.installed
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The demo server's count for a counter: how often it applied the effect, how many requests came.
func idempotencyCount(_ counter: String) async throws -> (applied: Int, arrivals: Int) {
    let url = try await DemoServer.url("/idempotency/count?counter=\(counter)")
    let json = try await Session().request(PlainGet(url: url)).data()
    let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    return (object["applied"] as? Int ?? -1, object["arrivals"] as? Int ?? -1)
}

/// A `GET` of a URL.
struct PlainGet: RequestFormable {
    let url: String
}

/// Collects deliveries as they arrive.
final class DeliveryLog: Sendable {
    private let deliveries = Protected([Outbox.Delivery]())
    private let task: Task<Void, Never>

    init(_ outbox: Outbox) {
        let deliveries = deliveries
        let stream = outbox.deliveries()
        task = Task {
            for await delivery in stream { deliveries.withLock { $0.append(delivery) } }
        }
    }

    var all: [Outbox.Delivery] { deliveries.withLock { $0 } }

    deinit { task.cancel() }
}

@Suite("Outbox", .serialized)
struct OutboxTests {
    /// Fast waits, so a test that goes offline does not wait long.
    static let quick = Outbox.Options(backoff: RetryPolicy(baseDelay: 0.05, maximumDelay: 0.2))

    @Test("An enqueued request is sent once, with its Idempotency-Key, and delivered")
    func sendsOnceWithKey() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let counter = "outbox-\(UUID().uuidString)"
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(outbox)
        let entry = try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/idempotency/apply?counter=\(counter)"), note: "hello"),
            tag: "comment")
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        #expect(delivery.entry.id == entry.id)
        #expect(delivery.entry.tag == "comment")
        #expect(delivery.response?.statusCode == 201)
        let body = try #require(
            try JSONSerialization.jsonObject(with: delivery.result.get()) as? [String: Any])
        #expect(body["key"] as? String == "\"\(entry.idempotencyKey)\"")
        #expect(try await idempotencyCount(counter) == (1, 1))
        #expect(await outbox.pending().isEmpty)
        await outbox.close()
    }

    @Test("Offline, requests wait in order; when the network returns each is applied once")
    func offlineThenOnline() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        let counter = "outbox-\(UUID().uuidString)"
        let url = try await DemoServer.url("/idempotency/apply?counter=\(counter)")
        var ids: [UUID] = []
        for note in ["one", "two", "three"] {
            ids.append(try await outbox.enqueue(ApplyForm(url: url, note: note)).id)
        }
        #expect(await outbox.pending().map(\.id) == ids)
        var statuses = outbox.statusUpdates().makeAsyncIterator()
        var sawWaiting = false
        while let status = await statuses.next() {
            if case .waiting = status.phase {
                sawWaiting = status.pendingCount == 3
                break
            }
        }
        #expect(sawWaiting)
        #expect(try await idempotencyCount(counter).arrivals == 0)
        network.isOffline = false
        await outbox.retryNow()
        await eventually("three deliveries") { log.all.count == 3 }
        #expect(log.all.map(\.entry.id) == ids)
        #expect(log.all.allSatisfy { (try? $0.result.get()) != nil })
        #expect(try await idempotencyCount(counter) == (3, 3))
        await outbox.close()
    }

    @Test("An answer lost after the server applied the request: sent again with the same key, applied once")
    func lostAnswerIsReplayed() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(outbox)
        let counter = "outbox-\(UUID().uuidString)"
        try await outbox.enqueue(
            ApplyForm(
                url: try await DemoServer.url("/idempotency/apply?counter=\(counter)&fail=503"), note: "x"))
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        #expect(delivery.attempts == 2)
        #expect(delivery.response?.value(forHTTPHeaderField: "Idempotency-Replayed") == "true")
        #expect(try await idempotencyCount(counter) == (1, 2))
        await outbox.close()
    }

    @Test("The session's retrier retries within one outbox attempt, with the same key: applied once")
    func sessionRetrierWithinAnAttempt() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let session = Session {
            $0.interceptors.retriers = [RetryPolicy(baseDelay: 0.01, maximumDelay: 0.05)]
        }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        let counter = "outbox-\(UUID().uuidString)"
        try await outbox.enqueue(
            ApplyForm(
                url: try await DemoServer.url("/idempotency/apply?counter=\(counter)&fail=503"), note: "r"))
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        #expect(delivery.attempts == 1)  // the session's retry is inside the outbox's one attempt
        #expect((try? delivery.result.get()) != nil)
        #expect(try await idempotencyCount(counter) == (1, 2))
        await outbox.close()
    }

    @Test("A GET in the outbox asks the server, never the session's HTTP cache")
    func bypassesTheCache() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let session = Session { $0.cache = HTTPCache(memoryCapacity: 1 << 20) }
        let id = "outbox-\(UUID().uuidString)"
        let url = try await DemoServer.url("/cache/resource?id=\(id)&cc=max-age=3600")
        _ = try await session.request(PlainGet(url: url)).data()  // now fresh in the cache
        _ = try await session.request(PlainGet(url: url)).data()  // answered by the cache
        #expect(try await cacheHits(id) == 1)
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(PlainGet(url: url))
        await eventually("the delivery") { log.all.count == 1 }
        #expect(try await cacheHits(id) == 2)
        await outbox.close()
    }

    /// How many times the demo server served `/cache/resource?id=`.
    private func cacheHits(_ id: String) async throws -> Int {
        let stats = try await Session().request(
            PlainGet(url: try await DemoServer.url("/cache/stats?id=\(id)"))
        ).data()
        let object = try #require(try JSONSerialization.jsonObject(with: stats) as? [String: Any])
        return try #require(object["hits"] as? Int)
    }

    @Test("A 429's Retry-After sets the wait, capped at the backoff's maximum delay", arguments: [60.0, 2.0])
    func retryAfterSetsTheWait(maximumDelay: TimeInterval) async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let options = Outbox.Options(backoff: RetryPolicy(baseDelay: 0.05, maximumDelay: maximumDelay))
        let outbox = try Outbox(directory: directory.url, session: Session(), options: options)
        let log = DeliveryLog(outbox)
        let key = "outbox-\(UUID().uuidString)"
        let asked = 20.0  // the server's Retry-After, in seconds
        let before = Date()
        try await outbox.enqueue(
            PlainGet(url: try await DemoServer.url("/fault/retry-after?key=\(key)&after=\(Int(asked))")))
        var statuses = outbox.statusUpdates().makeAsyncIterator()
        var until: Date?
        while let status = await statuses.next() {
            if case .waiting(let date) = status.phase {
                until = date
                break
            }
        }
        let wait = try #require(until)
        let expected = min(asked, maximumDelay)
        // Decided after `before` and before now: exactly `expected` seconds after the 429 arrived.
        #expect(wait >= before.addingTimeInterval(expected))
        #expect(wait <= Date().addingTimeInterval(expected))
        await outbox.retryNow()  // the server counts requests, not time: the next one succeeds
        await eventually("the delivery") { log.all.count == 1 }
        #expect((try? log.all.first?.result.get()) != nil)
        #expect(log.all.first?.attempts == 2)
        await outbox.close()
    }

    @Test("A 4xx is final: the request leaves the outbox with its error after one attempt")
    func clientErrorIsFinal() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/idempotency/apply"), note: "no counter"))
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        #expect(delivery.attempts == 1)
        #expect(delivery.response?.statusCode == 400)
        #expect(throws: NetworkError.self) { try delivery.result.get() }
        #expect(await outbox.pending().isEmpty)
        await outbox.close()
    }

    @Test("A new outbox on the same directory sends what an earlier one left, with the same keys")
    func restartPicksUpPending() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let offline = Session { $0.interceptors.adapters = [network.adapter] }
        let first = try Outbox(directory: directory.url, session: offline, options: Self.quick)
        let counter = "outbox-\(UUID().uuidString)"
        let url = try await DemoServer.url("/idempotency/apply?counter=\(counter)")
        let entries = [
            try await first.enqueue(ApplyForm(url: url, note: "a")),
            try await first.enqueue(ApplyForm(url: url, note: "b")),
        ]
        #expect(throws: NetworkError.self) { _ = try Outbox(directory: directory.url, session: Session()) }
        await first.close()

        let second = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(second)
        await eventually("two deliveries") { log.all.count == 2 }
        #expect(log.all.map(\.entry.id) == entries.map(\.id))
        #expect(log.all.map(\.entry.idempotencyKey) == entries.map(\.idempotencyKey))
        #expect(try await idempotencyCount(counter) == (2, 2))
        await second.close()
    }

    @Test("Cancel removes a pending request and delivers it as cancelled")
    func cancelRemoves() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        let counter = "outbox-\(UUID().uuidString)"
        let url = try await DemoServer.url("/idempotency/apply?counter=\(counter)")
        let cancelled = try await outbox.enqueue(ApplyForm(url: url, note: "cancel me"))
        let kept = try await outbox.enqueue(ApplyForm(url: url, note: "keep me"))
        #expect(await outbox.cancel(cancelled.id))
        #expect(await !outbox.cancel(cancelled.id))
        #expect(await outbox.pending().map(\.id) == [kept.id])
        network.isOffline = false
        await outbox.retryNow()
        await eventually("two deliveries") { log.all.count == 2 }
        let first = try #require(log.all.first)
        #expect(first.entry.id == cancelled.id)
        #expect((try? first.result.get()) == nil)
        if case .failure(let error) = first.result { #expect(error.isCancelled) }
        #expect(log.all.last?.entry.id == kept.id)
        #expect(try await idempotencyCount(counter).applied == 1)
        await outbox.close()
    }

    @Test("A request whose expiry passes while offline ends as expired")
    func expiryEnds() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/idempotency/apply?counter=x"), note: "late"),
            expiresAfter: 0.3)
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        guard case .failure(let error) = delivery.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .outbox)
        #expect(error.reason == .expired)
        #expect(delivery.attempts >= 1)
        await outbox.close()
    }

    @Test("An expiry of .infinity means never, whatever the options' default")
    func infiniteExpiry() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let url = try await DemoServer.url("/idempotency/apply?counter=x")
        let forever = try await outbox.enqueue(ApplyForm(url: url, note: "forever"), expiresAfter: .infinity)
        let usual = try await outbox.enqueue(ApplyForm(url: url, note: "usual"))
        #expect(forever.expiresAt == nil)
        #expect(usual.expiresAt != nil)
        #expect(await outbox.pending().map(\.expiresAt) == [nil, usual.expiresAt])
        await outbox.close()
    }

    @Test("warn shows a 2xx whose body holds a failure code, as .warn on a request does")
    @MainActor
    func warnsBusinessFailure() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let alert = Headless.Alert()
        outbox.warn(ApplyError.self, with: alert)
        let log = DeliveryLog(outbox)
        let counter = "outbox-\(UUID().uuidString)"
        let url = try await DemoServer.url("/idempotency/apply?counter=\(counter)")
        // The first application answers count 1 (a success code); the second count 2 (not one).
        try await outbox.enqueue(ApplyForm(url: url, note: "first"))
        try await outbox.enqueue(ApplyForm(url: url, note: "second"))
        await eventually("two deliveries") { log.all.count == 2 }
        #expect(log.all.allSatisfy { (try? $0.result.get()) != nil })
        await eventually("one warning") { alert.presentedMessages.count == 1 }
        await outbox.close()
    }

    @Test("A file body is the outbox's own copy: the app may delete its file after enqueue")
    func fileBodyIsCopied() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "outbox-upload-\(UUID()).txt")
        try Data("file body".utf8).write(to: file)
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(EchoFileForm(url: try await DemoServer.url("/echo/upload"), fileURL: file))
        try FileManager.default.removeItem(at: file)
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        let body = try #require(
            try JSONSerialization.jsonObject(with: delivery.result.get()) as? [String: Any])
        #expect(body["body"] as? String == "file body")
        #expect(body["method"] as? String == "POST")
        await outbox.close()
    }

    @Test(
        "A multipart body is encoded at enqueue (in memory or a file): its part files may be deleted after",
        arguments: [1_000_000, 1])
    func multipartIsEncodedAtEnqueue(threshold: Int) async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-part-\(UUID()).txt")
        try Data("photo bytes".utf8).write(to: file)
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(
            OutboxMultipartForm(url: try await DemoServer.url("/upload"), file: file, threshold: threshold))
        try FileManager.default.removeItem(at: file)
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        let body = try #require(
            try JSONSerialization.jsonObject(with: delivery.result.get()) as? [String: Any])
        let parts = try #require(body["parts"] as? [[String: Any]])
        #expect(parts.map { $0["name"] as? String } == ["userID", "photo"])
        #expect(parts.last?["bytes"] as? Int == 11)
        #expect((body["contentType"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
        await outbox.close()
    }

    @Test("Adapters run at send time: a token changed while the request waited is the one sent")
    func adaptersRunAtSendTime() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let token = Protected("old")
        let tokenAdapter = Adapter { request in
            var request = request
            request.headers["Authorization"] = "Bearer \(token.withLock { $0 })"
            return request
        }
        let session = Session { $0.interceptors.adapters = [tokenAdapter, network.adapter] }
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(ApplyForm(url: try await DemoServer.url("/echo/token"), note: "n"))
        token.withLock { $0 = "new" }
        network.isOffline = false
        await outbox.retryNow()
        await eventually("the delivery") { log.all.count == 1 }
        let delivery = try #require(log.all.first)
        let body = try #require(
            try JSONSerialization.jsonObject(with: delivery.result.get()) as? [String: Any])
        let headers = try #require(body["headers"] as? [String: Any])
        #expect(headers["authorization"] as? String == "Bearer new")
        #expect(headers["idempotency-key"] != nil)
        await outbox.close()
    }

    @Test("Over its limit the outbox refuses a request with a clear error and keeps the rest")
    func fullRefuses() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: true)
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        var options = Self.quick
        options.maximumCount = 2
        let outbox = try Outbox(directory: directory.url, session: session, options: options)
        let url = try await DemoServer.url("/idempotency/apply?counter=full")
        try await outbox.enqueue(ApplyForm(url: url, note: "1"))
        try await outbox.enqueue(ApplyForm(url: url, note: "2"))
        await #expect {
            try await outbox.enqueue(ApplyForm(url: url, note: "3"))
        } throws: { error in
            (error as? NetworkError)?.reason == .full
        }
        #expect(await outbox.pending().count == 2)
        await outbox.close()
    }

    @Test("Lanes are independent: a lane waiting offline does not hold up another")
    func lanesAreIndependent() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let network = try NetworkSwitch(offline: false)
        // Only the "photos" lane's host is unreachable.
        let session = Session {
            $0.interceptors.adapters = [
                Adapter { request in
                    guard request.url?.path.hasPrefix("/idempotency/apply") == true,
                        request.url?.query?.contains("counter=photos") == true
                    else { return request }
                    return try await network.adapter.adapt(request)
                }
            ]
        }
        network.isOffline = true
        let outbox = try Outbox(directory: directory.url, session: session, options: Self.quick)
        let log = DeliveryLog(outbox)
        let photos = "photos-\(UUID().uuidString)"
        try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/idempotency/apply?counter=\(photos)"), note: "p"),
            lane: "photos")
        let comment = try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/echo/comment"), note: "c"), lane: "comments")
        await eventually("the comment's delivery") { log.all.contains { $0.entry.id == comment.id } }
        #expect(await outbox.pending().map(\.lane) == ["photos"])
        await outbox.close()
    }

    @Test("warn and inform show results of requests whose screen is gone")
    @MainActor
    func messages() async throws {
        let directory = OutboxDirectory()
        defer { directory.remove() }
        let outbox = try Outbox(directory: directory.url, session: Session(), options: Self.quick)
        let alert = Headless.Alert()
        let saved = Headless.Alert(message: "Sent")
        outbox.warn(ApplyError.self, with: alert)
        outbox.inform(ApplyError.self, with: saved)
        let log = DeliveryLog(outbox)
        try await outbox.enqueue(ApplyForm(url: try await DemoServer.url("/idempotency/apply"), note: "bad"))
        try await outbox.enqueue(
            ApplyForm(url: try await DemoServer.url("/idempotency/apply?counter=\(UUID())"), note: "good"))
        await eventually("two deliveries") { log.all.count == 2 }
        await eventually("one warning and one success message") {
            alert.presentedMessages.count == 1 && saved.presentedMessages == ["Sent"]
        }
        await outbox.close()
    }
}
