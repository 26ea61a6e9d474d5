import AsyncHTTPClient
import Formwork
import FormworkTestSupport
import Foundation
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session's ``TrustPolicy`` over the AsyncHTTPClient transport, against the demo server's TLS
/// listeners (certificates made at test time; the transport's shared client trusts only the
/// system's roots): trust anchors apply to their hosts only, and a client identity that cannot be
/// opened fails before a byte is sent. Pins: ``PinningTests``.
@Suite("AsyncHTTPClient transport: trust policies", .timeLimit(.minutes(5)))
struct TrustTransportTests {
    struct Client: Requestable {}

    struct Stats: Decodable, Sendable {
        let hits: Int
    }

    struct Form: RequestFormable {
        var url: String
    }

    let client = Client()

    private func hits(_ id: String, _ server: TLSDemoServer) async throws -> Int {
        let session = Session { $0.transport = AsyncHTTPClientTransport() }
        let data = try await client.request(
            Form(url: server.plainBaseURL + "/cache/stats?id=\(id)"), session: session
        )
        .data()
        return try JSONDecoder().decode(Stats.self, from: data).hits
    }

    private func anchors(_ server: TLSDemoServer, hosts: [String]) throws -> TrustAnchors {
        try TrustAnchors(
            hosts: hosts, pem: String(contentsOf: server.certificates.caCertificate, encoding: .utf8))
    }

    @Test("Trust anchors for 127.0.0.1 let its private CA in, and only for that host")
    func anchorsForOneHostOnly() async throws {
        let server = try await DemoServer.tls()
        let policy = TrustPolicy(anchors: [try anchors(server, hosts: ["127.0.0.1"])])
        let session = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.trust = policy
        }
        let body = try await client.request(Form(url: server.url("/echo")), session: session).data()
        #expect(!body.isEmpty)
        // The same server by another name: no anchors, so the system's roots, which refuse the CA.
        let other = server.url("/echo").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let refused = await client.request(Form(url: other), session: session).response()
        #expect(refused.error?.kind == .transport)
        #expect(refused.error?.urlErrorCode == .serverCertificateUntrusted)
    }

    @Test("A client identity that cannot be opened fails the request with a clear error, not sent")
    func unreadableClientIdentity() async throws {
        let server = try await DemoServer.tls()
        let id = "trust-\(UUID().uuidString)"
        let policy = TrustPolicy(
            clientIdentities: [
                try ClientIdentity(hosts: ["127.0.0.1"], pkcs12: Data("not p12".utf8), password: "")
            ])
        let session = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.trust = policy
        }
        let response = await client.request(
            Form(url: server.url("/cache/resource?id=\(id)&cc=no-store")), session: session
        )
        .response()
        #expect(response.error?.kind == .invalidTrustPolicy)
        #expect(response.error?.reason == .invalidCertificate)
        #expect(try await hits(id, server) == 0)
    }
}
