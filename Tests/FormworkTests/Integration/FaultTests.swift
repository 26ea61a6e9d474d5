import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Faults end in a typed NetworkError or a successful retry")
struct FaultTests {
    let client = Client()
    let fast = RetryPolicy(baseDelay: 0.01)

    private func key() -> String { "k\(UUID().uuidString.prefix(12))" }

    @Test(
        "Socket faults are transport errors, never crashes",
        arguments: ["/fault/reset", "/fault/close", "/fault/garbage"])
    func socketFaults(path: String) async throws {
        let session = Session()  // no pooled connection from other tests is reused here
        let response = await client.request(TestForm(url: try await DemoServer.url(path)), session: session)
            .handledString()
        let error = try #require(response.error)
        #expect(error.kind == .transport)
        #expect(error.isNetworkFailure)
        #expect(error.urlErrorCode != nil)
        #expect(!error.userMessage(using: .english).isEmpty)
    }

    @Test("A body cut short (the server lied about its length) is a transport error")
    func cutBody() async throws {
        let response = await client.request(
            TestForm(url: try await DemoServer.url("/files/100000?cutAt=5000"))
        )
        .handledString()
        #expect(response.error?.kind == .transport)
        #expect(response.error?.isNetworkFailure == true)
    }

    @Test("A stalled server trips the idle timeout")
    func stall() async throws {
        let response = await client.request(
            TestForm(url: try await DemoServer.url("/slow?ms=10000"), idleTimeout: 1), session: Session()
        ).handledString()
        #expect(response.error?.isTimeout == true)
    }

    @Test("A 1 byte/s trickle never trips the idle timeout, but the total deadline stops it")
    func trickle() async throws {
        let url = try await DemoServer.url("/files/3?rate=1")
        // 1 byte every second never leaves a 5 s window without data: the idle timeout never fires.
        let slowButAlive = try await client.request(TestForm(url: url, idleTimeout: 5), session: Session())
            .data()
        #expect(slowButAlive == DemoFileContent.bytes(size: 3))

        let started = Date()
        let stopped = await client.request(
            TestForm(url: try await DemoServer.url("/files/100?rate=1")), session: Session()
        )
        .totalTimeout(1.5).handledString()
        #expect(stopped.error?.isTimeout == true)
        #expect(Date().timeIntervalSince(started) < 30)  // the trickle alone would take 100 s
    }

    @Test("A burst of 503s is retried until the server recovers; handlers run once")
    @MainActor
    func burst() async throws {
        let key = key()
        let log = EventLog()
        let attempts = AttemptCounter()
        let url = try await DemoServer.url("/fault/burst?key=\(key)&failures=2&status=503")
        let response = await withCheckedContinuation { continuation in
            client.request(TestForm(url: url)).adapt(attempts).retry(fast)
                .responseString { response in
                    log.record("handler")
                    continuation.resume(returning: response)
                }
        }
        #expect(response.error == nil)
        #expect(attempts.counter.count == 3)
        #expect(log.events == ["handler"])
    }

    @Test("A 5xx burst longer than the retry limit ends in the last 5xx")
    func burstTooLong() async throws {
        let url = try await DemoServer.url("/fault/burst?key=\(key())&failures=5&status=502")
        let response = await client.request(TestForm(url: url)).retry(fast).handledString()
        #expect(response.error?.statusCode == 502)
    }

    @Test(
        "429 with Retry-After waits the time the server asks for, in seconds or as a date",
        arguments: [false, true])
    func retryAfter(asDate: Bool) async throws {
        let url = try await DemoServer.url(
            "/fault/retry-after?key=\(key())&failures=1&after=2&date=\(asDate ? 1 : 0)")
        let monitor = RecordingMonitor()
        let session = Session { $0.interceptors.eventMonitors = [monitor] }
        // Backoff with its jitter pinned to the top would wait exactly 30 s; the server asks for 2 s.
        var policy = RetryPolicy(baseDelay: 30, maximumDelay: 60)
        policy.random = { $0.upperBound }
        let text = try await client.request(TestForm(url: url), session: session).retry(policy).string()
        #expect(text.contains("\"attempt\":2"))
        let delay = try #require(monitor.delays.first)
        if asDate {
            // An HTTP date has whole-second precision and the answer took a moment to arrive.
            #expect(delay >= 0 && delay <= 2)
        } else {
            #expect(delay == 2)
        }
    }

    @Test("Socket faults are retried like other transient failures when the method is idempotent")
    func faultRetried() async throws {
        let attempts = AttemptCounter()
        _ = await client.request(TestForm(url: try await DemoServer.url("/fault/close")), session: Session())
            .adapt(attempts).retry(fast).handledString()
        #expect(attempts.counter.count == 3)
    }
}

@Suite("Nothing outlives its request")
struct LifetimeTests {
    let client = Client()

    /// Waits (polling, bounded) until a weakly held object is gone.
    private func released(_ probe: () -> AnyObject?) async -> Bool {
        for _ in 0..<500 {
            if probe() == nil { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return false
    }

    @Test("Finished, failed and cancelled requests are released, with their cores")
    func requestsReleased() async throws {
        let session = Session()
        weak var finished: DataRequest?
        weak var failed: DataRequest?
        weak var cancelled: DataRequest?
        weak var core: RequestCore?
        do {
            let request = client.request(TestForm(url: try await DemoServer.url("/echo")), session: session)
            finished = request
            core = request.core
            _ = try await request.data()
        }
        do {
            let request = client.request(
                TestForm(url: try await DemoServer.url("/status/500")), session: session)
            failed = request
            _ = await request.handledString()
        }
        do {
            let request = client.request(
                TestForm(url: try await DemoServer.url("/slow?ms=5000")), session: session)
            cancelled = request
            await request.waitUntilRunning()
            request.cancel()
            _ = await request.handledString()
        }
        #expect(await released { finished })
        #expect(await released { core })
        #expect(await released { failed })
        #expect(await released { cancelled })
        #expect(session.routedTaskCount == 0)

        // Cancelled while waiting 600 s to retry: the wait must not keep the request alive.
        weak var waiting: RequestCore?
        do {
            let request = client.request(
                TestForm(url: try await DemoServer.url("/status/503")), session: session
            )
            .retry(Retrier { _ in .retry(after: 600) })
            .resume()
            waiting = request.core
            while request.core.lifecycleState != .retrying {
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            request.cancel()
            _ = await request.handledString()
        }
        #expect(await released { waiting })
    }

    @Test("Downloads and uploads leave no temp or partial files behind, whatever the outcome")
    func noFilesLeft() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let ok = TestDownloadForm(
            url: try await DemoServer.url("/files/100000"), destination: scratch.file("ok"))
        _ = try await client.download(ok).fileURL()
        let failed = TestDownloadForm(
            url: try await DemoServer.url("/status/404"), destination: scratch.file("nf"))
        _ = await client.download(failed).response()
        var form = MultipartFormData()
        form.append(DemoFileContent.bytes(size: 50_000), name: "file", fileName: "f.bin")
        let upload = TestMultipartUpload(
            url: try await DemoServer.url("/status/500"), multipartFormData: form, encodingMemoryThreshold: 0,
            encodingDirectory: scratch.url)
        _ = await client.upload(upload).handledString()
        #expect(try scratch.contents() == ["ok"])
    }

    @Test("2,000 concurrent requests all succeed")
    func twoThousand() async throws {
        let url = try await DemoServer.url("/echo")
        let session = Session()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for id in 0..<2000 {
                group.addTask {
                    let echo = try? await Client().request(
                        TestForm(url: url, parameters: ["id": id]), session: session
                    )
                    .decode(Echo.self)
                    return echo?.queryItems["id"] == [String(id)]
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        #expect(failures == 0)
    }
}
