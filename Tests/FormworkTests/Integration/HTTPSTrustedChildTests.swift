import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if os(Linux)
    /// HTTPS with the test CA trusted, over the built-in URLSession transport: the paths run in a
    /// child process (`TrustedChild`), the only way on Linux to trust a CA without changing the
    /// system's store. On Apple platforms a test could only trust it through the keychain (the
    /// system's store) or a server-trust delegate that Formwork does not expose, so this suite is
    /// Linux-only. (The AsyncHTTPClient transport trusts a CA through its client's TLS
    /// configuration: its own tests cover these paths in-process.)
    @Suite("HTTPS with the test CA trusted (child process)", .timeLimit(.minutes(5)))
    struct HTTPSTrustedChildTests {
        let plain = MessageCatalog.englishWithoutCodes

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
    }
#endif
