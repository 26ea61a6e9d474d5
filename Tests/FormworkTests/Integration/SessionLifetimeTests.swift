import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A session holds its transport, connections and threads while it is used, and not after it is
/// dropped or invalidated: services that make a session per tenant or user must not run out of
/// descriptors (a dropped session once kept 3 sockets for good: each coalesced request's shared
/// task and its `URLSession` kept each other alive).
@Suite("Session lifetime against the demo server", .serialized, .timeLimit(.minutes(5)))
struct SessionLifetimeTests {
    let client = Client()

    @Test("1,000 sessions made and dropped, one request each, give back their descriptors and threads")
    func droppedSessionsReleaseEverything() async throws {
        try await expectResourcesComeBack(after: 1_000) { form in
            try await sendOnce(form, on: Session())
        }
    }

    @Test("1,000 sessions invalidated after one request each give back their descriptors and threads")
    func invalidatedSessionsReleaseEverything() async throws {
        try await expectResourcesComeBack(after: 1_000) { form in
            let session = Session()
            try await sendOnce(form, on: session)
            session.invalidate()
        }
    }

    @Test("invalidate(): what runs finishes, what starts later fails with sessionInvalidated")
    func invalidateFinishesWhatRuns() async throws {
        let session = Session { $0.coalescesRequests = false }
        let running = client.request(
            TestForm(url: try await DemoServer.url("/slow?ms=300")), session: session)
        await running.waitUntilRunning()
        session.invalidate()
        let late = client.request(TestForm(url: try await DemoServer.url("/json/array")), session: session)
        await #expect { try await late.data() } throws: { error in
            (error as? NetworkError)?.kind == .sessionInvalidated
        }
        #expect(late.request == nil)  // never sent
        let data = try await running.data()
        #expect(String(decoding: data, as: UTF8.self).contains("sleptMs"))
        await eventually("the session lets go of its transport") { session.isReleased }
    }

    @Test("invalidateAndCancel(): what runs is cancelled, what starts later fails with sessionInvalidated")
    func invalidateAndCancelCancelsWhatRuns() async throws {
        let session = Session()
        let running = client.request(
            TestForm(url: try await DemoServer.url("/slow?ms=5000")), session: session)
        await running.waitUntilRunning()
        session.invalidateAndCancel()
        await #expect { try await running.data() } throws: { error in
            (error as? NetworkError)?.kind == .cancelled
        }
        let late = client.request(TestForm(url: try await DemoServer.url("/json/array")), session: session)
        await #expect { try await late.data() } throws: { error in
            (error as? NetworkError)?.kind == .sessionInvalidated
        }
        await eventually("the session lets go of its transport") { session.isReleased }
    }

    @Test("Session.default ignores invalidate() and invalidateAndCancel()")
    func defaultSessionIgnoresInvalidation() async throws {
        Session.default.invalidate()
        Session.default.invalidateAndCancel()
        let data = try await client.request(TestForm(url: try await DemoServer.url("/json/array"))).data()
        #expect(!data.isEmpty)
        #expect(!Session.default.isReleased)
    }

    /// Warms up (the first session and request start what the process keeps anyway: the
    /// transport's shared threads, the harness's connection to the demo server), runs `body`
    /// `rounds` times, and expects descriptors and threads to come back within 16 of where they
    /// were after the warm-up.
    private func expectResourcesComeBack(
        after rounds: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (TestForm) async throws -> Void
    ) async throws {
        let form = TestForm(url: try await DemoServer.url("/json/array"))
        try await body(form)
        guard let baseline = ProcessResources.now() else { return }  // no /proc: nothing to count
        for _ in 0..<rounds {
            try await body(form)
        }
        var now = baseline
        await eventually(
            "descriptors and threads back within 16 of \(baseline) (last seen: \(now))",
            sourceLocation: sourceLocation
        ) {
            now = ProcessResources.now() ?? baseline
            return now.isWithin(16, of: baseline)
        }
    }

    private func sendOnce(_ form: TestForm, on session: Session) async throws {
        let data = try await client.request(form, session: session).data()
        #expect(!data.isEmpty)
    }
}
