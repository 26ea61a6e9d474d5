import Foundation

extension DemoServer {
    /// The demo server's HTTPS side, started on first call (only the suites that use it pay for
    /// making certificates and a second server process; ``baseURL()`` is not affected).
    ///
    /// The server is `DemoServerTLS` (the demo server with HTTPS listeners, found or built like
    /// `DemoServer`: see ``DemoServerExecutable``), run with `--tls-cert`/`--tls-key` for the
    /// certificates of a fresh ``TestCertificates``; it prints one `Formwork demo server listening
    /// on https://...` line per TLS listener after its plain `http://` line.
    /// - Returns: Its URLs and certificates.
    /// - Throws: ``DemoServerError`` when the certificates cannot be made or the server cannot start.
    public static func tls() async throws -> TLSDemoServer {
        let (baseURLs, certificates) = try await DemoServerLauncher.shared.tlsServer()
        guard baseURLs.count == 1 + TLSDemoServer.listenerCount else {
            throw DemoServerError(
                description:
                    "DemoServer: expected \(1 + TLSDemoServer.listenerCount) listeners, got \(baseURLs)")
        }
        return TLSDemoServer(
            plainBaseURL: baseURLs[0], baseURL: baseURLs[1], mismatchedBaseURL: baseURLs[2],
            certificates: certificates)
    }

    /// The HTTPS base URL whose certificate is for `127.0.0.1` and `localhost`, e.g.
    /// "https://127.0.0.1:54322" (no trailing slash). Starts the HTTPS server on first call.
    /// - Returns: The base URL.
    /// - Throws: ``DemoServerError`` when the server cannot start.
    public static func tlsBaseURL() async throws -> String {
        try await tls().baseURL
    }
}

/// The running HTTPS demo server: one process with a plain listener and two TLS listeners, all
/// with the same endpoints as ``DemoServer/baseURL()``.
public struct TLSDemoServer: Sendable {
    /// The same process over plain HTTP, e.g. "http://127.0.0.1:54321".
    public let plainBaseURL: String
    /// TLS with a certificate for `127.0.0.1` and `localhost`, signed by ``TestCertificates/caCertificate``.
    public let baseURL: String
    /// TLS with a certificate for `wrong.example` (signed by the same CA): the name never matches.
    public let mismatchedBaseURL: String
    /// The CA and certificates the listeners use.
    public let certificates: TestCertificates

    /// How many TLS listeners ``arguments(for:)`` asks for.
    static let listenerCount = 2

    /// The server's TLS options: ``baseURL``'s listener first, then ``mismatchedBaseURL``'s.
    static func arguments(for certificates: TestCertificates) -> [String] {
        [
            "--tls-port", "0", "--tls-cert", certificates.serverCertificate.path,
            "--tls-key", certificates.serverKey.path,
            "--tls-port", "0", "--tls-cert", certificates.mismatchedCertificate.path,
            "--tls-key", certificates.mismatchedKey.path,
        ]
    }

    /// `baseURL + path`.
    /// - Parameter path: e.g. "/echo".
    /// - Returns: The URL string.
    public func url(_ path: String) -> String { baseURL + path }
}
