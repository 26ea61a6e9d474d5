import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A session holds its transport, connections and threads while it is used, and not after it is
/// dropped or invalidated: services that make a session per tenant or user must not run out of
/// descriptors (a dropped session once kept 3 sockets for good: each coalesced request's shared
/// task kept its `URLSession` task alive, and with it the `URLSession`). The descriptors and
/// threads themselves are counted by `MemoryCheck sessions`, in a process of its own.
@Suite("Session lifetime against the demo server", .serialized, .timeLimit(.minutes(5)))
struct SessionLifetimeTests {
    let client = Client()

    @Test("20 sessions made and dropped, one request each, are released with their URLSessions")
    func droppedSessionsAreReleased() async throws {
        try await expectReleased(rounds: 20) { form, session in
            try await sendOnce(form, on: session)
        }
    }

    @Test("20 sessions invalidated after one request each are released with their URLSessions")
    func invalidatedSessionsAreReleased() async throws {
        try await expectReleased(rounds: 20) { form, session in
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

    /// Makes `rounds` sessions, runs `body` with each, drops them, and expects every one of them
    /// released, and with it the `URLSession` the built-in transport made for it (its sockets and
    /// threads: counting those, process-wide, is `MemoryCheck sessions`, apart from other suites).
    /// Few rounds: corelibs makes and tears down a `URLSession` on libcurl's one shared queue, and
    /// hundreds of them (slow under TSan) held every other suite's requests back for seconds.
    private func expectReleased(
        rounds: Int, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (TestForm, Session) async throws -> Void
    ) async throws {
        let form = TestForm(url: try await DemoServer.url("/json/array"))
        let sessions = WeakObjects()
        let urlSessions = WeakObjects()
        for _ in 0..<rounds {
            let session = Session()
            try await body(form, session)
            sessions.add(session)
            if let builtIn = session.urlSessionTransport { urlSessions.add(builtIn.urlSession) }
        }
        await eventually("every session released (\(sessions.alive) alive)", sourceLocation: sourceLocation) {
            sessions.alive == 0
        }
        await eventually(
            "every URLSession released (\(urlSessions.alive) alive)", sourceLocation: sourceLocation
        ) {
            urlSessions.alive == 0
        }
    }

    private func sendOnce(_ form: TestForm, on session: Session) async throws {
        let data = try await client.request(form, session: session).data()
        #expect(!data.isEmpty)
    }
}
