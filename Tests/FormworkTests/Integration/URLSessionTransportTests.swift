import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLSessionTransport` the app makes (for a `URLSessionConfiguration` of its own) belongs to
/// the app: its `URLSession` lives as long as the transport and goes when nothing refers to it,
/// so a dropped session still releases its connections; a session only lets go of it, so two
/// sessions may share one. (The transport a session makes for itself is invalidated with the
/// session: `SessionLifetimeTests`.) URLSession-only: not linked into the behaviour suite over
/// AsyncHTTPClient.
@Suite("URLSessionTransport against the demo server", .serialized, .timeLimit(.minutes(5)))
struct URLSessionTransportTests {
    let client = Client()

    @Test("20 sessions on transports made by the app, dropped after one request, release their URLSessions")
    func droppedSessionsReleaseTheirURLSessions() async throws {
        try await expectReleased(rounds: 20) { _ in }
    }

    @Test("20 such sessions invalidated after one request, then dropped, release their URLSessions")
    func invalidatedSessionsReleaseTheirURLSessions() async throws {
        try await expectReleased(rounds: 20) { session in
            session.invalidate()
            await eventually("the session lets go of its transport") { session.isReleased }
        }
    }

    @Test("Two sessions share one transport: invalidating one leaves the other running on it")
    func sharedTransport() async throws {
        let form = TestForm(url: try await DemoServer.url("/json/array"))
        let urlSessions = WeakObjects()
        do {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 2
            let shared = URLSessionTransport(configuration: configuration)
            urlSessions.add(shared.urlSession)
            let first = Session { $0.transport = shared }
            let second = Session { $0.transport = shared }
            _ = try await client.request(form, session: first).data()
            first.invalidateAndCancel()
            await eventually("the first session lets go of the transport") { first.isReleased }
            let data = try await client.request(form, session: second).data()
            #expect(!data.isEmpty)
            #expect(second.urlSessionTransport === shared)
            await #expect { try await client.request(form, session: first).data() } throws: { error in
                (error as? NetworkError)?.kind == .sessionInvalidated
            }
        }
        await eventually("the shared URLSession released (\(urlSessions.alive) alive)") {
            urlSessions.alive == 0
        }
    }

    /// Makes `rounds` sessions, each on a `URLSessionTransport` made here with a configuration of
    /// its own, sends one request on each, runs `end` with it, drops it and its transport, and
    /// expects every session, transport and `URLSession` released.
    private func expectReleased(
        rounds: Int, sourceLocation: SourceLocation = #_sourceLocation, _ end: (Session) async -> Void
    ) async throws {
        let form = TestForm(url: try await DemoServer.url("/json/array"))
        let objects = WeakObjects()
        let urlSessions = WeakObjects()
        for _ in 0..<rounds {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 2
            let transport = URLSessionTransport(configuration: configuration)
            let session = Session { $0.transport = transport }
            let data = try await client.request(form, session: session).data()
            #expect(!data.isEmpty, sourceLocation: sourceLocation)
            await end(session)
            objects.add(session)
            objects.add(transport)
            urlSessions.add(transport.urlSession)
        }
        await eventually(
            "every session and transport released (\(objects.alive) alive)", sourceLocation: sourceLocation
        ) {
            objects.alive == 0
        }
        await eventually(
            "every URLSession released (\(urlSessions.alive) alive)", sourceLocation: sourceLocation
        ) {
            urlSessions.alive == 0
        }
    }
}
