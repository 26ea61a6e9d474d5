import Foundation
import Testing

@testable import Formwork

/// libcurl's messages as FoundationNetworking hands them over in a -1 `URLError`. Those marked
/// "seen" were captured on Debian 12 (libcurl 7.88.1, OpenSSL 3.0) against local TLS servers.
@Suite("TLS failures reported as -1 on Linux get Apple's codes")
struct TLSFailureTests {
    private let plain = MessageCatalog.englishWithoutCodes

    /// A -1 error as FoundationNetworking builds it: the message, the failing URL, and an
    /// underlying -1 error with the same message.
    private func linuxError(_ message: String, code: URLError.Code = .unknown) -> URLError {
        let url = URL(string: "https://127.0.0.1:8443/echo")!
        let inner = NSError(
            domain: NSURLErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: message])
        return URLError(
            code,
            userInfo: [
                NSLocalizedDescriptionKey: message, NSUnderlyingErrorKey: inner,
                NSURLErrorFailingURLErrorKey: url,
            ])
    }

    @Test(
        "Certificate, host-name and handshake failures get the Apple code",
        arguments: [
            // seen: a CA the trust store does not know
            (
                "SSL certificate problem: unable to get local issuer certificate",
                URLError.Code.serverCertificateUntrusted
            ),
            // seen: self-signed leaf, and a chain that sends its own root
            ("SSL certificate problem: self-signed certificate", .serverCertificateUntrusted),
            (
                "SSL certificate problem: self-signed certificate in certificate chain",
                .serverCertificateUntrusted
            ),
            // seen: trusted CA, leaf expired / not valid yet
            ("SSL certificate problem: certificate has expired", .serverCertificateHasBadDate),
            ("SSL certificate problem: certificate is not yet valid", .serverCertificateNotYetValid),
            // seen: a trusted certificate for another name
            (
                "SSL: no alternative certificate subject name matches target host name '127.0.0.1'",
                .serverCertificateUntrusted
            ),
            (
                "SSL: certificate subject name 'wrong.example' does not match target host name 'x'",
                .serverCertificateUntrusted
            ),
            // libcurl's own texts for results 60 and 35, used when it wrote no message
            ("SSL peer certificate or SSH remote key was not OK", .serverCertificateUntrusted),
            ("SSL connect error", .secureConnectionFailed),
            // seen: https to a plain HTTP port
            ("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .secureConnectionFailed),
            // seen: TLS 1.2 server that requires a client certificate
            (
                "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure",
                .secureConnectionFailed
            ),
            // the OpenSSL 1.1 layout of the same entry
            (
                "error:14094410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure",
                .secureConnectionFailed
            ),
            (
                "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:8443 ",
                .secureConnectionFailed
            ),
            // seen: TLS 1.3 server that requires a client certificate (it says so after the handshake)
            (
                "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
                .clientCertificateRequired
            ),
            (
                "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate, errno 0",
                .clientCertificateRejected
            ),
            (
                "OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca",
                .clientCertificateRejected
            ),
        ])
    func classified(message: String, expected: URLError.Code) throws {
        #expect(TLSFailure.code(forCurlMessage: message) == expected)
        let mapped = try #require(TLSFailure.appleEquivalent(of: linuxError(message)))
        #expect(mapped.code == expected)
        let error = NetworkError.transport(linuxError(message), request: nil, response: nil, data: nil)
        #expect(error.kind == .transport)
        #expect(error.urlErrorCode == expected)
        #expect(error.isNetworkFailure)
        #expect(error.userMessage(using: plain) == plain.secureConnectionFailed)
    }

    @Test(
        "Other -1 failures are left alone: a body cut short stays a lost connection",
        arguments: [
            "transfer closed with 1000 bytes remaining to read",
            // a TLS connection cut mid-body: OpenSSL's wording, but a lost connection
            "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000126:SSL routines::unexpected eof while reading, errno 0",
            "OpenSSL SSL_read: Connection reset by peer, errno 104",
            "Recv failure: Connection reset by peer",
            "Failed writing body",
            "error:0A000126 is not an OpenSSL entry without its library",
            "error:8000006F:system library::Connection refused",
            "",
        ])
    func notTLS(message: String) {
        #expect(TLSFailure.code(forCurlMessage: message) == nil)
        #expect(TLSFailure.appleEquivalent(of: linuxError(message)) == nil)
        let error = NetworkError.transport(linuxError(message), request: nil, response: nil, data: nil)
        // Not TLS: Linux's -1 for a connection lost mid-body becomes Apple's -1005.
        #expect(error.urlErrorCode == .networkConnectionLost)
        #expect(error.userMessage(using: plain) == plain.connectionLost)
    }

    @Test("Only -1 is looked at: other codes keep their own meaning whatever the text says")
    func onlyUnknown() {
        let message = "SSL certificate problem: unable to get local issuer certificate"
        #expect(TLSFailure.appleEquivalent(of: linuxError(message, code: .networkConnectionLost)) == nil)
        #expect(TLSFailure.appleEquivalent(of: CocoaError(.fileNoSuchFile)) == nil)
        // An Apple -1202 passes through unchanged.
        let apple = NetworkError.transport(
            URLError(.serverCertificateUntrusted), request: nil, response: nil, data: nil)
        #expect(apple.urlErrorCode == .serverCertificateUntrusted)
    }

    @Test("The mapped error keeps libcurl's message, the failing URL and the original error")
    func keepsOriginal() throws {
        let message = "SSL certificate problem: unable to get local issuer certificate"
        let mapped = try #require(TLSFailure.appleEquivalent(of: linuxError(message)))
        #expect(mapped.userInfo[NSLocalizedDescriptionKey] as? String == message)
        #expect(mapped.failingURL?.absoluteString == "https://127.0.0.1:8443/echo")
        let original = try #require(mapped.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(original.code == URLError.Code.unknown.rawValue)
        #expect(original.domain == NSURLErrorDomain)
        let error = NetworkError.transport(linuxError(message), request: nil, response: nil, data: nil)
        #expect(error.failureReason.contains("(-1202)"))
        #expect(error.failureReason.contains(message))
    }

    @Test("A refused certificate is not retried: it will not get better by itself")
    func notRetried() {
        let message = "SSL certificate problem: unable to get local issuer certificate"
        let error = NetworkError.transport(linuxError(message), request: nil, response: nil, data: nil)
        let codes = RetryPolicy.defaultRetryableURLErrorCodes
        #expect(error.urlErrorCode.map(codes.contains) == false)
    }
}
