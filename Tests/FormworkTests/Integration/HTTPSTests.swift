import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// HTTPS against the demo server's TLS listeners (`DemoServerTLS`, started by `DemoServer.tls()`),
/// with certificates made at test time: the refusals, in this process (no trust store knows the
/// test CA). The paths that need the CA trusted are in `HTTPSTrustedChildTests`.
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
        let session = Session { $0.interceptors.eventMonitors = [monitor] }
        let response = await client.request(TestForm(url: server.url("/echo")), session: session)
            .retry(RetryPolicy(baseDelay: 0.01))
            .handledString()
        #expect(response.error?.urlErrorCode == .serverCertificateUntrusted)
        #expect(monitor.events == ["start 1", "finish"])
        #expect(monitor.metrics.first?.attempts == 1)
    }
}
