import Foundation
import Testing

@testable import Formwork

/// Apple's URL loading calls `startLoading` from a thread's run loop and expects the protocol's
/// client to be called on that same thread.
@Suite("Stubs call their URLProtocol client on the startLoading thread", .serialized, .timeLimit(.minutes(1)))
struct StubThreadTests {
    /// Records every client call's thread.
    // @unchecked: its only mutable state is behind `calls`' lock.
    private final class RecordingClient: NSObject, URLProtocolClient, @unchecked Sendable {
        let calls = Protected<[(String, Thread)]>([])
        let finished: @Sendable () -> Void

        init(finished: @escaping @Sendable () -> Void) {
            self.finished = finished
        }

        private func record(_ name: String) {
            calls.withLock { $0.append((name, Thread.current)) }
        }

        func urlProtocol(
            _ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse
        ) {
            record("redirect")
        }
        func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
            record("cached")
        }
        func urlProtocol(
            _ protocol: URLProtocol, didReceive response: URLResponse,
            cacheStoragePolicy policy: URLCache.StoragePolicy
        ) {
            record("response")
        }
        func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { record("data") }
        func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
            record("finish")
            finished()
        }
        func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
            record("fail")
            finished()
        }
        func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
            record("challenge")
        }
        func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
            record("cancel challenge")
        }
    }

    /// Runs `startLoading` from a timer on a thread that runs its run loop (as Apple's loader
    /// thread does) and returns that thread and the client's calls.
    private func load(_ stub: StubResponse) async -> (Thread?, [(String, Thread)]) {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://stub.example/thread", stub)
        var stubbed = URLRequest(url: URL(string: "https://stub.example/thread")!)
        stubbed.setValue(stubs.id, forHTTPHeaderField: StubURLProtocol.registryHeader)
        let request = stubbed
        let done = Protected(false)
        let loaderThread = Protected<Thread?>(nil)
        let waiting = Protected<CheckedContinuation<Void, Never>?>(nil)
        let client = RecordingClient {
            done.withLock { $0 = true }
            waiting.withLock { continuation in
                continuation?.resume()
                continuation = nil
            }
        }
        await withCheckedContinuation { continuation in
            waiting.withLock { $0 = continuation }
            let thread = Thread {
                let runLoop = RunLoop.current
                let kick = Timer(timeInterval: 0, repeats: false) { _ in
                    loaderThread.withLock { $0 = Thread.current }
                    StubURLProtocol(request: request, cachedResponse: nil, client: client).startLoading()
                }
                runLoop.add(kick, forMode: .default)
                let deadline = Date().addingTimeInterval(30)
                while !done.current, Date() < deadline {
                    _ = runLoop.run(mode: .default, before: Date().addingTimeInterval(0.05))
                }
            }
            thread.start()
        }
        _ = stubs  // alive until the answer came
        return (loaderThread.current, client.calls.current)
    }

    @Test(
        "Answers with and without a delay come on the thread whose run loop ran startLoading",
        arguments: [0, 0.05])
    func runLoopThread(delay: TimeInterval) async throws {
        let (thread, calls) = await load(StubResponse(body: Data("ok".utf8), delay: delay, chunkSize: 1))
        let loader = try #require(thread)
        #expect(calls.map(\.0) == ["response", "data", "data", "finish"])
        // Compared as plain values: a failed expectation must not have to describe the threads.
        let onLoaderThread = calls.allSatisfy { $0.1 === loader }
        #expect(onLoaderThread)
    }

    @Test("A failure stub is delivered on that thread too")
    func failureThread() async throws {
        let (thread, calls) = await load(.failure(.notConnectedToInternet, delay: 0.05))
        #expect(calls.map(\.0) == ["fail"])
        let onLoaderThread = calls.allSatisfy { $0.1 === thread }
        #expect(onLoaderThread)
    }

    @Test("Through a stubbed session, an immediate answer is delivered within startLoading")
    func throughSession() async throws {
        let url = "https://stub.example/\(UUID().uuidString)"
        let seen = Protected<[(Thread, Thread)]>([])
        StubURLProtocol.clientCallObserver.withLock {
            $0 = { request, started, called in
                if request.url?.absoluteString == url { seen.withLock { $0.append((started, called)) } }
            }
        }
        defer { StubURLProtocol.clientCallObserver.withLock { $0 = nil } }
        let stubs = StubRegistry()
        stubs.stub(.get, url, .json("{}"))
        let session = Session(stubs: stubs)
        _ = try await Client().request(TestForm(url: url), session: session).data()
        #expect(seen.current.count == 1)
        let sameThread = seen.current.allSatisfy { $0.0 === $0.1 }
        #expect(sameThread)
    }
}
