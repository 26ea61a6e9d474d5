import Formwork
import FormworkTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Pins over the AsyncHTTPClient transport, against the demo server's TLS listeners serving chains
/// made at test time (root → intermediate → leaf, a rotated leaf, a foreign CA, an expired leaf,
/// a listener that requires a client certificate). The test root is no system root, so every
/// policy trusts it as the anchor of the hosts it names; `/cache/stats` on the plain listener
/// says whether a request reached the server.
@Suite("AsyncHTTPClient transport: pins over the wire", .timeLimit(.minutes(5)))
struct PinningTests {
    struct Client: Requestable {}

    struct Form: RequestFormable {
        var url: String
    }

    struct Stats: Decodable, Sendable {
        let hits: Int
    }

    /// Collects reports from a policy's handler and from a session's monitors.
    final class Reports: EventMonitor {
        private let handledBox = NIOLockedValueBox<[TrustReport]>([])
        private let monitoredBox = NIOLockedValueBox<[TrustReport]>([])
        var handled: [TrustReport] { handledBox.withLockedValue { $0 } }
        var monitored: [TrustReport] { monitoredBox.withLockedValue { $0 } }
        func handle(_ report: TrustReport) { handledBox.withLockedValue { $0.append(report) } }
        func requestDidReportTrust(_ id: UUID, report: TrustReport) {
            monitoredBox.withLockedValue { $0.append(report) }
        }
    }

    /// The links of the chain a pin may name.
    enum Link: String, CaseIterable, Sendable {
        case leaf, intermediate, root
    }

    let client = Client()
    /// Two pins of no certificate of the tests.
    let unrelatedPins = [Data(repeating: 7, count: 32), Data(repeating: 8, count: 32)].map {
        $0.base64EncodedString()
    }

    private func session(_ policy: TrustPolicy, reports: Reports? = nil) -> Session {
        Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.trust = policy
            if let reports { $0.interceptors.eventMonitors = [reports] }
        }
    }

    /// The test root as the anchor of `hosts`.
    private func anchors(_ server: ChainDemoServer, hosts: [String] = ["127.0.0.1", "localhost"]) throws
        -> TrustAnchors
    {
        try TrustAnchors(hosts: hosts, certificates: [server.chains.root.der])
    }

    private func resource(_ baseURL: String, _ id: String) -> String {
        baseURL + "/cache/resource?id=\(id)&cc=no-store"
    }

    private func hits(_ id: String, _ server: ChainDemoServer) async throws -> Int {
        let plain = Session { $0.transport = AsyncHTTPClientTransport() }
        let data = try await client.request(
            Form(url: server.plainBaseURL + "/cache/stats?id=\(id)"), session: plain
        )
        .data()
        return try JSONDecoder().decode(Stats.self, from: data).hits
    }

    private func newID() -> String { "pin-\(UUID().uuidString)" }

    @Test("A pin on any link of the chain lets the request through", arguments: Link.allCases)
    func pinOnEachLink(_ link: Link) async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let pin: String
        switch link {
        case .leaf: pin = chains.leaf.pin
        case .intermediate: pin = chains.intermediate.pin
        case .root: pin = chains.root.pin
        }
        let id = newID()
        let policy = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: [pin, unrelatedPins[0]])],
            anchors: [try anchors(server)])
        let response = await client.request(
            Form(url: resource(server.leafBaseURL, id)), session: session(policy)
        )
        .response()
        #expect(response.error == nil)
        #expect(try await hits(id, server) == 1)
    }

    @Test("After a key rotation the backup pin lets the new leaf through; without it the request is refused")
    func backupPinAfterRotation() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let withBackup = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: [chains.leaf.pin, chains.rotatedLeaf.pin])],
            anchors: [try anchors(server)])
        let passed = await client.request(
            Form(url: resource(server.rotatedBaseURL, newID())), session: session(withBackup)
        ).response()
        #expect(passed.error == nil)
        let withoutBackup = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: [chains.leaf.pin, unrelatedPins[0]])],
            anchors: [try anchors(server)])
        let id = newID()
        let refused = await client.request(
            Form(url: resource(server.rotatedBaseURL, id)), session: session(withoutBackup)
        ).response()
        #expect(refused.error?.kind == .serverTrust)
        #expect(refused.error?.presentedPins?.first == chains.rotatedLeaf.pin)
        #expect(try await hits(id, server) == 0)
    }

    @Test(
        "Wrong pins fail before a byte is sent, never retried, with the host, the pins expected and the chain's"
    )
    func wrongPins() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let id = newID()
        let policy = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins)], anchors: [try anchors(server)])
        let session = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.trust = policy
            $0.interceptors.retriers = [RetryPolicy(baseDelay: 0.01)]
        }
        let response = await client.request(Form(url: resource(server.leafBaseURL, id)), session: session)
            .response()
        let error = try #require(response.error)
        #expect(error.kind == .serverTrust)
        #expect(error.reason == .pinMismatch)
        #expect(error.host == "127.0.0.1")
        #expect(error.expectedPins == unrelatedPins.sorted())
        // The leaf and intermediate the server sent, and the anchor that signed the intermediate.
        #expect(error.presentedPins == [chains.leaf.pin, chains.intermediate.pin, chains.root.pin])
        #expect(error.failureReason?.contains(chains.leaf.pin) == true)
        #expect(try await hits(id, server) == 0)
    }

    @Test(
        "A chain of another CA is refused by the platform's evaluation first, and by the pins under its own anchor"
    )
    func foreignCA() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let pins = [chains.root.pin, chains.intermediate.pin]
        let ours = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: pins)], anchors: [try anchors(server)])
        let untrusted = await client.request(
            Form(url: resource(server.foreignBaseURL, newID())), session: session(ours)
        )
        .response()
        #expect(untrusted.error?.kind == .transport)
        #expect(untrusted.error?.urlErrorCode == .serverCertificateUntrusted)
        let theirs = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: pins)],
            anchors: [try TrustAnchors(hosts: ["127.0.0.1"], certificates: [chains.foreignRoot.der])])
        let id = newID()
        let refused = await client.request(
            Form(url: resource(server.foreignBaseURL, id)), session: session(theirs)
        )
        .response()
        #expect(refused.error?.kind == .serverTrust)
        #expect(refused.error?.presentedPins == [chains.foreignLeaf.pin, chains.foreignRoot.pin])
        #expect(try await hits(id, server) == 0)
    }

    @Test(
        "An expired leaf is refused even when its key is pinned: pins only narrow what the platform accepts")
    func expiredLeaf() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let id = newID()
        let policy = TrustPolicy(
            pinSets: [
                try PinSet(hosts: ["127.0.0.1"], pins: [chains.expiredLeaf.pin, chains.intermediate.pin])
            ],
            anchors: [try anchors(server)])
        let response = await client.request(
            Form(url: resource(server.expiredBaseURL, id)), session: session(policy)
        )
        .response()
        #expect(response.error?.kind == .transport)
        #expect(response.error?.urlErrorCode == .serverCertificateUntrusted)
        #expect(try await hits(id, server) == 0)
    }

    @Test(
        "Report-only: the request goes on, and the mismatch reaches the handler and the monitors with the chain"
    )
    func reportOnly() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let id = newID()
        let reports = Reports()
        let policy = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins, mode: .reportOnly)],
            anchors: [try anchors(server)], reportHandler: { reports.handle($0) })
        let response = await client.request(
            Form(url: resource(server.leafBaseURL, id)), session: session(policy, reports: reports)
        ).response()
        #expect(response.error == nil)
        #expect(try await hits(id, server) == 1)
        #expect(reports.handled.map(\.outcome) == [.mismatch])
        #expect(reports.monitored.map(\.outcome) == [.mismatch])
        #expect(
            reports.handled.first?.presentedPins == [
                chains.leaf.pin, chains.intermediate.pin, chains.root.pin,
            ])
    }

    @Test("An expired pin set is not enforced: the request goes on and the app is told")
    func expiredPinSet() async throws {
        let server = try await DemoServer.chains()
        let id = newID()
        let reports = Reports()
        let policy = TrustPolicy(
            pinSets: [
                try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins, expires: Date(timeIntervalSince1970: 0))
            ],
            anchors: [try anchors(server)], reportHandler: { reports.handle($0) })
        let response = await client.request(
            Form(url: resource(server.leafBaseURL, id)), session: session(policy)
        )
        .response()
        #expect(response.error == nil)
        #expect(try await hits(id, server) == 1)
        #expect(reports.handled.map(\.outcome) == [.pinSetExpired])
    }

    @Test(
        "Host patterns: a subdomain pattern covers its domain, a one-label wildcard and a look-alike do not")
    func hostPatterns() async throws {
        let server = try await DemoServer.chains()
        let localhost = server.leafBaseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        // `**.localhost` covers localhost itself: the wrong pins refuse it.
        let covering = TrustPolicy(
            pinSets: [try PinSet(hosts: ["**.localhost"], pins: unrelatedPins)],
            anchors: [try anchors(server)])
        let refused = await client.request(
            Form(url: resource(localhost, newID())), session: session(covering)
        )
        .response()
        #expect(refused.error?.kind == .serverTrust)
        #expect(refused.error?.host == "localhost")
        // `*.localhost` needs one label before it; `localhost.example` and `127.0.0.2` only look alike.
        for hosts in [["*.localhost"], ["localhost.example", "xlocalhost"], ["127.0.0.2"]] {
            let policy = TrustPolicy(
                pinSets: [try PinSet(hosts: hosts, pins: unrelatedPins)], anchors: [try anchors(server)])
            let passed = await client.request(
                Form(url: resource(localhost, newID())), session: session(policy)
            )
            .response()
            #expect(passed.error == nil, "pins for \(hosts) applied to localhost")
        }
    }

    @Test("Mutual TLS: the server requires a client certificate; the host's identity passes, with pins")
    func mutualTLS() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let without = await client.request(
            Form(url: resource(server.mutualTLSBaseURL, newID())),
            session: session(TrustPolicy(anchors: [try anchors(server)]))
        ).response()
        #expect(without.error?.kind == .transport)
        let id = newID()
        let policy = TrustPolicy(
            pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: [chains.intermediate.pin, unrelatedPins[0]])],
            anchors: [try anchors(server)],
            clientIdentities: [
                try ClientIdentity(
                    hosts: ["127.0.0.1"], pkcs12: chains.clientPKCS12, password: chains.clientPassword)
            ])
        let response = await client.request(
            Form(url: resource(server.mutualTLSBaseURL, id)), session: session(policy)
        )
        .response()
        #expect(response.error == nil)
        #expect(try await hits(id, server) == 1)
    }

    @Test("A redirect to another host is checked against that host's pins")
    func redirectToPinnedHost() async throws {
        let server = try await DemoServer.chains()
        let id = newID()
        let policy = TrustPolicy(
            pinSets: [try PinSet(hosts: ["localhost"], pins: unrelatedPins)], anchors: [try anchors(server)])
        let target = resource(server.leafBaseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"), id)
        let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let response = await client.request(
            Form(url: server.leafBaseURL + "/redirect?to=\(escaped)&status=302"), session: session(policy)
        ).response()
        #expect(response.error?.kind == .serverTrust)
        #expect(response.error?.host == "localhost")
        #expect(try await hits(id, server) == 0)
    }

    @Test("A refused chain is neither stored in the cache nor answered with a stale stored response")
    func cache() async throws {
        let server = try await DemoServer.chains()
        let chains = server.chains
        let cache = HTTPCache()
        let id = newID()
        // Stale at once, and servable on error for ten minutes (if errors were allowed to).
        let url = server.leafBaseURL + "/cache/resource?id=\(id)&cc=max-age%3D0,stale-if-error%3D600"
        let good = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.cache = cache
            $0.trust = TrustPolicy(
                pinSets: [
                    try! PinSet(hosts: ["127.0.0.1"], pins: [chains.intermediate.pin, unrelatedPins[0]])
                ],
                anchors: [try! anchors(server)])
        }
        let bad = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.cache = cache
            $0.trust = TrustPolicy(
                pinSets: [try! PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins)],
                anchors: [try! anchors(server)])
        }
        // Not stored: nothing was received.
        let refused = await client.request(Form(url: url), session: bad).response()
        #expect(refused.error?.kind == .serverTrust)
        #expect(try await hits(id, server) == 0)
        // Stored by a session whose pins pass, then not served, though stale-if-error allows it,
        // to one whose pins refuse the chain.
        let stored = await client.request(Form(url: url), session: good).response()
        #expect(stored.error == nil)
        let again = await client.request(Form(url: url), session: bad).response()
        #expect(again.error?.kind == .serverTrust)
        #expect(try await hits(id, server) == 1)
    }

    @Test("Requests that would coalesce all fail when the chain is refused, and none reaches the server")
    func coalescing() async throws {
        let server = try await DemoServer.chains()
        let id = newID()
        let session = session(
            TrustPolicy(
                pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins)],
                anchors: [try anchors(server)]))
        let url = resource(server.leafBaseURL, id)
        let kinds = await withTaskGroup(of: NetworkError.Kind?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await client.request(Form(url: url), session: session).response().error?.kind
                }
            }
            var kinds: [NetworkError.Kind?] = []
            for await kind in group { kinds.append(kind) }
            return kinds
        }
        #expect(kinds == Array(repeating: .serverTrust, count: 4))
        #expect(try await hits(id, server) == 0)
    }

    @Test("In an outbox a refused chain waits and is tried again later, on the same host, never sent")
    func outbox() async throws {
        let server = try await DemoServer.chains()
        let id = newID()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(id)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox(
            directory: directory,
            session: session(
                TrustPolicy(
                    pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins)],
                    anchors: [try anchors(server)])))
        let statuses = outbox.statusUpdates()
        try await outbox.enqueue(Form(url: resource(server.leafBaseURL, id)))
        var waits = 0
        for await status in statuses {
            guard case .waiting = status.phase else { continue }
            waits += 1
            #expect(status.pendingCount == 1)
            if waits == 2 { break }
            // Tried again now rather than at the backoff's date: it fails the same way and waits.
            await outbox.retryNow()
        }
        #expect(waits == 2)
        #expect(await outbox.pending().count == 1)
        #expect(try await hits(id, server) == 0)
        await outbox.close()
    }
}
