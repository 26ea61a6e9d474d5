import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A request's own timeout and deadline against the session's defaults (issue 12 §4).
///
/// Each test has a session of its own: corelibs counts time queued behind the 6 connections per
/// host toward a timeout, and the shared session is busy with the rest of the suite. Bounds are
/// generous (the machine is shared); each still tells "precise" from "rounded to a second" and
/// from "the session's value".
extension TimingSensitiveSuites {
    @Suite("Timeouts and deadlines against the demo server")
    struct TimeoutTests {
        let client = Client()

        /// Sends `request` and returns how it ended and how long it took.
        private func timed(_ request: DataRequest) async -> (error: NetworkError?, seconds: TimeInterval) {
            let started = Date()
            do {
                _ = try await request.data()
                return (nil, Date().timeIntervalSince(started))
            } catch {
                return (error, Date().timeIntervalSince(started))
            }
        }

        @Test("A form timeout of 0.3 s fails a stalled request after about 0.3 s, not at once, not after 1 s")
        func subSecondFormTimeout() async throws {
            let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"), idleTimeout: 0.3)
            let (error, seconds) = await timed(client.request(form, session: Session()))
            #expect(error?.isTimeout == true)
            #expect(seconds >= 0.25)
            #expect(seconds < 0.9)
        }

        @Test("A session timeout of 0.4 s (no form timeout) is enforced precisely too")
        func subSecondSessionTimeout() async throws {
            let session = Session { $0.timeouts.idle = 0.4 }
            let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"))
            let (error, seconds) = await timed(client.request(form, session: session))
            #expect(error?.isTimeout == true)
            #expect(seconds >= 0.35)
            #expect(seconds < 0.95)
        }

        @Test("A form's longer timeout wins over the session's shorter one")
        func formTimeoutWinsOverSession() async throws {
            let session = Session { $0.timeouts.idle = 1 }
            let form = TestForm(url: try await DemoServer.url("/slow?ms=2200"), idleTimeout: 5)
            let (error, seconds) = await timed(client.request(form, session: session))
            #expect(error == nil)
            #expect(seconds >= 2)
        }

        @Test("The timeout is idle, not total: bytes arriving every 50 ms keep a 0.5 s timeout from firing")
        func timeoutIsIdle() async throws {
            // 3,000 bytes at 2,000 B/s: 1.5 s in all, a chunk every 50 ms.
            let form = TestForm(url: try await DemoServer.url("/files/3000?rate=2000"), idleTimeout: 0.5)
            let (error, seconds) = await timed(client.request(form, session: Session()))
            #expect(error == nil)
            #expect(seconds >= 1.2)
        }

        @Test("A request's deadline wins over the session's default deadline")
        func requestDeadlineWinsOverSession() async throws {
            let session = Session { $0.timeouts.total = 30 }
            let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"))
            let (error, seconds) = await timed(client.request(form, session: session).totalTimeout(0.5))
            #expect(error?.isTimeout == true)
            #expect(seconds >= 0.45)
            #expect(seconds < 5)
        }

        @Test("A reload gets the deadline again: its run of a stalled request ends at the deadline too")
        func reloadKeepsTheDeadline() async throws {
            let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"), idleTimeout: 30)
            let request = client.request(form, session: Session()).totalTimeout(0.5)
            let (first, _) = await timed(request)
            #expect(first?.isTimeout == true)
            // What the reload prompt does: the same request, sent again through the same chain.
            let started = Date()
            request.core.restart()
            let second = await request.core.outcome()
            #expect(second.attempt == 2)
            #expect(second.error?.isTimeout == true)
            #expect(second.error?.failureReason.contains("deadline") == true)
            #expect(Date().timeIntervalSince(started) < 10)  // not the 30 s idle timeout
        }

        @Test("A deadline is total: a steady trickle cannot keep the request alive past it")
        func deadlineIsTotal() async throws {
            let form = TestForm(url: try await DemoServer.url("/files/3000?rate=2000"), idleTimeout: 5)
            let (error, seconds) = await timed(client.request(form, session: Session()).totalTimeout(0.6))
            #expect(error?.isTimeout == true)
            #expect(seconds >= 0.55)
            #expect(seconds < 1.4)
        }

        @Test("A precise idle timeout that fires is retried like URLSession's own timeout")
        func preciseTimeoutIsRetryable() async throws {
            let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"), idleTimeout: 0.3)
            let request = client.request(form, session: Session()).retry(
                RetryPolicy(retryLimit: 1, baseDelay: 0))
            let (error, seconds) = await timed(request)
            #expect(error?.isTimeout == true)
            #expect(seconds >= 0.55)  // two attempts of 0.3 s
            #expect(seconds < 1.8)
        }
    }
}
