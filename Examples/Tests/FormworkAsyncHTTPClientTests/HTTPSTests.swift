import AsyncHTTPClient
import Formwork
import FormworkTestSupport
import Foundation
import NIOSSL
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPS through the AsyncHTTPClient transport against the demo server's TLS listeners
/// (`DemoServerTLS`, built beside these tests and started by `DemoServer.tls()`), with
/// certificates made at test time. AsyncHTTPClient trusts a CA through its client's TLS
/// configuration, so the paths that need the test CA trusted run in this process (over
/// `URLSession` they need a child process: `HTTPSTrustedChildTests` in the root package). The
/// refusals by a client that does not know the CA run in the behaviour suite (`HTTPSTests`).
@Suite("AsyncHTTPClient transport over HTTPS", .timeLimit(.minutes(5)))
struct HTTPSTransportTests {
    struct Client: Requestable {}

    struct EchoReply: Decodable, Sendable {
        let path: String
        let queryItems: [String: [String]]
        let headers: [String: String]
    }

    struct EchoForm: TypedFormable {
        typealias Response = EchoReply
        var url: String
        var headers: HTTPHeaders = [:]
    }

    let client = Client()

    /// Runs `body` with a session whose transport's client trusts the test CA, and nothing else.
    private func withTrustingSession<T: Sendable>(
        _ certificates: TestCertificates, _ body: (Session) async throws -> T
    ) async throws -> T {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificates.caCertificate.path)
        configuration.tlsConfiguration = tls
        let httpClient = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let session = Session { $0.transport = AsyncHTTPClientTransport(client: httpClient) }
        do {
            let result = try await body(session)
            try await httpClient.shutdown()
            return result
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
    }

    @Test(
        "With the test CA trusted, the certificate for 127.0.0.1 and localhost is accepted",
        arguments: [
            "127.0.0.1", "localhost",
        ])
    func trustedCertificate(host: String) async throws {
        let server = try await DemoServer.tls()
        let url = server.url("/echo?via=\(host)").replacingOccurrences(of: "127.0.0.1", with: host)
        let echo = try await withTrustingSession(server.certificates) { session in
            try await client.send(EchoForm(url: url), session: session)
        }
        #expect(echo.path == "/echo")
        #expect(echo.queryItems["via"] == [host])
    }

    @Test("With the test CA trusted, a certificate for another name is refused as an untrusted certificate")
    func nameMismatch() async throws {
        let server = try await DemoServer.tls()
        let response = try await withTrustingSession(server.certificates) { session in
            await client.request(EchoForm(url: server.mismatchedBaseURL + "/echo"), session: session)
                .response()
        }
        let error = try #require(response.error)
        #expect(error.kind == .transport)
        #expect(error.urlErrorCode == .serverCertificateUntrusted)
        #expect(error.isNetworkFailure)
        #expect(response.response == nil)
    }

    @Test("A redirect from https down to http drops Authorization and Cookie")
    func downgradeDropsCredentials() async throws {
        let server = try await DemoServer.tls()
        let headers: HTTPHeaders = [
            "Authorization": "Bearer secret-token", "Cookie": "session=secret", "X-Formwork-Probe": "kept",
        ]
        let target = server.plainBaseURL + "/echo"
        let encodedTarget = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let (direct, redirected) = try await withTrustingSession(server.certificates) { session in
            // Over HTTPS, with no redirect, all three arrive.
            let direct = try await client.send(
                EchoForm(url: server.url("/echo"), headers: headers), session: session)
            // Redirected to the same host over plain HTTP, the credentials stay behind.
            let redirected = try await client.send(
                EchoForm(url: server.url("/redirect?status=302&to=\(encodedTarget)"), headers: headers),
                session: session)
            return (direct, redirected)
        }
        #expect(direct.headers["authorization"] == "Bearer secret-token")
        #expect(direct.headers["cookie"] == "session=secret")
        #expect(redirected.path == "/echo")
        #expect(redirected.headers["host"] == URL(string: target).map { "\($0.host ?? ""):\($0.port ?? 0)" })
        #expect(redirected.headers["authorization"] == nil)
        #expect(redirected.headers["cookie"] == nil)
        #expect(redirected.headers["x-formwork-probe"] == "kept")
    }
}
