import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// HTTPS against the demo server's TLS listeners, with certificates made at test time.
///
/// Refusals run in this process: no trust store knows the test CA. The paths that need the CA
/// trusted run in a child process (`TrustedChild`) on Linux, the only way there to trust a CA
/// without changing the system's store. On Apple platforms a test could only trust it through the
/// keychain (the system's store) or a server-trust delegate that Formwork does not expose, so
/// those tests are Linux-only.
@Suite("HTTPS against the demo server", .timeLimit(.minutes(5)))
struct HTTPSTests {
    let client = Client()
    let plain = MessageCatalog.englishWithoutCodes

    @Test("A certificate from a CA the trust store does not know is refused as a secure-connection failure")
    func untrustedCertificate() async throws {
        let server = try await DemoServer.tls()
        let request = client.request(TestForm(url: server.url("/echo")))
        let response = await request.handledString()
        let error = try #require(response.error)
        #expect(error.kind == .transport)
        #expect(error.urlErrorCode == .serverCertificateUntrusted)
        #expect(error.isNetworkFailure)
        #expect(error.userMessage(using: plain) == plain.secureConnectionFailed)
        #expect(response.response == nil)
        // The same server over plain HTTP answers: the refusal is about the certificate.
        let echo = try await client.request(TestForm(url: server.plainBaseURL + "/echo")).decode(Echo.self)
        #expect(echo.path == "/echo")
    }

    @Test("A refused certificate is not retried, even with a retry policy")
    func untrustedNotRetried() async throws {
        let server = try await DemoServer.tls()
        let monitor = RecordingMonitor()
        let session = Session { $0.eventMonitors = [monitor] }
        let response = await client.request(TestForm(url: server.url("/echo")), session: session)
            .retry(RetryPolicy(baseDelay: 0.01))
            .handledString()
        #expect(response.error?.urlErrorCode == .serverCertificateUntrusted)
        #expect(monitor.events == ["start 1", "finish"])
        #expect(monitor.metrics.first?.attempts == 1)
    }

    #if os(Linux)
        @Test(
            "With the test CA trusted, the certificate for 127.0.0.1 and localhost is accepted",
            arguments: ["127.0.0.1", "localhost"])
        func trustedCertificate(host: String) async throws {
            let server = try await DemoServer.tls()
            let url = server.url("/echo?via=\(host)").replacingOccurrences(of: "127.0.0.1", with: host)
            let report = try await TrustedChild.probe(url, trusting: server.certificates)
            #expect(report.errorKind == nil, "\(report.failureReason ?? "")")
            let echo = try JSONDecoder().decode(Echo.self, from: Data((report.body ?? "").utf8))
            #expect(echo.path == "/echo")
            #expect(echo.queryItems["via"] == [host])
        }

        @Test(
            "With the test CA trusted, a certificate for another name is refused as a secure-connection failure"
        )
        func nameMismatch() async throws {
            let server = try await DemoServer.tls()
            let report = try await TrustedChild.probe(
                server.mismatchedBaseURL + "/echo", trusting: server.certificates)
            #expect(report.body == nil)
            #expect(report.errorKind == NetworkError.Kind.transport.name)
            #expect(report.urlErrorCode == URLError.Code.serverCertificateUntrusted.rawValue)
            #expect(report.userMessage == plain.secureConnectionFailed)
            // It is the name that is refused, not the chain: the CA is trusted in the child.
            #expect(
                report.failureReason?.contains("target host name") == true, "\(report.failureReason ?? "")")
        }

        @Test("A redirect from https down to http drops Authorization and Cookie")
        func downgradeDropsCredentials() async throws {
            let server = try await DemoServer.tls()
            let headers = [
                "Authorization: Bearer secret-token", "Cookie: session=secret", "X-Formwork-Probe: kept",
            ]
            // Over HTTPS, with no redirect, all three arrive.
            let direct = try await TrustedChild.probe(
                server.url("/echo"), headers: headers, trusting: server.certificates)
            let sent = try JSONDecoder().decode(Echo.self, from: Data((direct.body ?? "").utf8))
            #expect(sent.headers["authorization"] == "Bearer secret-token")
            #expect(sent.headers["cookie"] == "session=secret")
            // Redirected to the same host over plain HTTP, the credentials stay behind.
            let target = server.plainBaseURL + "/echo"
            let encodedTarget = try #require(
                target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let report = try await TrustedChild.probe(
                server.url("/redirect?status=302&to=\(encodedTarget)"), headers: headers,
                trusting: server.certificates)
            #expect(report.errorKind == nil, "\(report.failureReason ?? "")")
            let echo = try JSONDecoder().decode(Echo.self, from: Data((report.body ?? "").utf8))
            #expect(echo.path == "/echo")
            #expect(echo.headers["host"] == URL(string: target).map { "\($0.host ?? ""):\($0.port ?? 0)" })
            #expect(echo.headers["authorization"] == nil)
            #expect(echo.headers["cookie"] == nil)
            #expect(echo.headers["x-formwork-probe"] == "kept")
        }
    #endif
}
