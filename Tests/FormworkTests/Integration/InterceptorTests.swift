import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Counts the attempts of a request: adapters run once per attempt.
struct AttemptCounter: RequestAdapter {
    let counter = Counter()
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        counter.increment()
        return request
    }
}

/// MBNetwork's signing: a signature over the sorted query parameters and a shared secret.
struct SortedParameterSigner: RequestAdapter {
    let secret: String
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        let items = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let canonical = items.sorted { $0.name < $1.name }.map { "\($0.name)=\($0.value ?? "")" }.joined(
            separator: "&")
        request.setValue(Self.digest(canonical + secret), forHTTPHeaderField: "X-Signature")
        return request
    }

    /// A small deterministic digest (FNV-1a), enough to show that the server sees the signature.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// Shared base parameters every request of an app carries (MBNetwork's common parameters).
struct BaseParameters: RequestAdapter {
    let items: [URLQueryItem]
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        var components = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + items
        request.url = components.url
        return request
    }
}

@Suite("Adapters and retries against the demo server")
struct InterceptorTests {
    let client = Client()
    let fast = RetryPolicy(baseDelay: 0.01)

    @Test("Session adapters run before request adapters, on every request")
    func adapterOrder() async throws {
        let session = Session {
            $0.interceptors.adapters = [
                BaseParameters(items: [
                    URLQueryItem(name: "app", value: "demo"), URLQueryItem(name: "v", value: "2"),
                ])
            ]
        }
        let form = TestForm(url: try await DemoServer.url("/echo"), parameters: ["city": "rome"])
        let echo = try await client.request(form, session: session)
            .adapt(SortedParameterSigner(secret: "s3cret"))
            .decode(Echo.self)
        #expect(echo.queryItems["app"] == ["demo"])
        #expect(echo.queryItems["city"] == ["rome"])
        #expect(echo.headers["x-signature"] == SortedParameterSigner.digest("app=demo&city=rome&v=2s3cret"))
    }

    @Test("A failing adapter fails the request before anything is sent")
    func adapterFails() async throws {
        struct NoToken: Error {}
        let request = client.request(TestForm(url: try await DemoServer.url("/echo")))
            .adapt(Adapter { _ in throw NoToken() })
        let response = await request.handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.error?.underlyingError is NoToken)
        #expect(request.core.task == nil)
    }

    @Test("A 503 is retried twice by default, then fails with the last response")
    func retriesStatus() async throws {
        let attempts = AttemptCounter()
        let response = await client.request(TestForm(url: try await DemoServer.url("/status/503")))
            .adapt(attempts).retry(fast).handledString()
        #expect(response.error?.statusCode == 503)
        #expect(attempts.counter.count == 3)
    }

    @Test("POST, 404 and cancellations are not retried")
    func notRetried() async throws {
        let post = AttemptCounter()
        _ = await client.request(TestForm(url: try await DemoServer.url("/status/503"), method: .post))
            .adapt(post).retry(fast).handledString()
        #expect(post.counter.count == 1)

        let notFound = AttemptCounter()
        _ = await client.request(TestForm(url: try await DemoServer.url("/status/404")))
            .adapt(notFound).retry(fast).handledString()
        #expect(notFound.counter.count == 1)
    }

    @Test("A transport failure is retried; the session's retrier applies when the request has none")
    func transportRetry() async throws {
        let attempts = AttemptCounter()
        let session = Session { $0.interceptors.retriers = [RetryPolicy(retryLimit: 3, baseDelay: 0.01)] }
        let response = await client.request(
            TestForm(url: "http://127.0.0.1:\(try UnusedPort.find())/"), session: session
        ).adapt(attempts).handledString()
        #expect(response.error?.urlErrorCode == .cannotConnectToHost)
        #expect(attempts.counter.count == 4)
    }

    @Test("Cancelling during the retry delay ends the request at once")
    func cancelDuringDelay() async throws {
        let attempts = AttemptCounter()
        let request = client.request(TestForm(url: try await DemoServer.url("/status/503")))
            .adapt(attempts).retry(Retrier { _ in .retry(after: 600) }).resume()
        while request.core.lifecycleState != .retrying {
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        let started = Date()
        request.cancel()
        let response = await request.handledString()
        #expect(response.error?.isCancelled == true)
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the 600 s delay
        #expect(attempts.counter.count == 1)
    }

    @Test("Handlers run once, with the final attempt's outcome")
    @MainActor
    func handlersOncePerRequest() async throws {
        let log = EventLog()
        let request = client.request(TestForm(url: try await DemoServer.url("/status/500"))).retry(fast)
        await withCheckedContinuation { continuation in
            request.responseString { response in
                log.record("string \(response.error?.statusCode ?? 0)")
                continuation.resume()
            }
        }
        #expect(log.events == ["string 500"])
        #expect(request.core.state.current.machine.attempt == 3)
    }

    @Test("A deadline fails a slow request as a timeout, even between retries")
    func deadline() async throws {
        let url = try await DemoServer.url("/slow?ms=60000")
        let started = Date()
        let slow = await client.request(TestForm(url: url)).totalTimeout(0.5).handledString()
        #expect(slow.error?.isTimeout == true)
        #expect(slow.error?.failureReason.contains("deadline") == true)
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the server would answer

        let attempts = AttemptCounter()
        let session = Session { $0.timeouts.total = 0.5 }
        let retrying = await client.request(
            TestForm(url: try await DemoServer.url("/status/503")), session: session
        )
        .adapt(attempts).retry(Retrier { _ in .retry(after: 30) }).handledString()
        #expect(retrying.error?.isTimeout == true)
        #expect(attempts.counter.count == 1)
    }

    @Test("A request that finishes in time is not affected by its deadline")
    func deadlineMet() async throws {
        let text = try await client.request(TestForm(url: try await DemoServer.url("/echo"))).totalTimeout(30)
            .string()
        #expect(text.contains("GET"))
    }
}
