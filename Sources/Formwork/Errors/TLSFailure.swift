import Foundation

/// Gives a TLS failure on Linux the `URLError` code Apple platforms report for it.
///
/// FoundationNetworking on Linux runs on libcurl with OpenSSL. It reports every TLS failure as
/// `URLError.unknown` (-1) and drops libcurl's own result code (`CURLE_PEER_FAILED_VERIFICATION`,
/// `CURLE_SSL_CONNECT_ERROR`, ...): the only trace left is libcurl's message, kept as the error's
/// description. So without this, an untrusted certificate reads as a lost connection and is even
/// retried. The messages have fixed shapes, written by libcurl and OpenSSL themselves:
///
/// - `SSL certificate problem: <reason>`: the certificate chain failed verification; the reason is
///   OpenSSL's verify-error text (`unable to get local issuer certificate`, `certificate has expired`).
/// - `SSL: no alternative certificate subject name matches target host name '...'` and the other
///   `SSL: ...` host-name checks of libcurl: the certificate is for another name.
/// - `... error:0A000410:SSL routines::<reason>`: an entry of OpenSSL's error queue from its TLS
///   library (`SSL routines`), during the handshake or, after `OpenSSL SSL_read: `, while reading.
/// - libcurl's result-code texts, used when it wrote no message of its own.
///
/// Only those shapes count; anything else, and every other code, is left as it is.
enum TLSFailure {
    /// An Apple-equivalent error for a Linux TLS failure, or `nil` when `error` is not one.
    ///
    /// The result keeps the original `userInfo` (its message and failing URL) and holds the
    /// original error under `NSUnderlyingErrorKey`.
    /// - Parameter error: The error a task finished with.
    /// - Returns: A `URLError` with the Apple code, or `nil`.
    static func appleEquivalent(of error: any Error) -> URLError? {
        guard let urlError = error as? URLError, urlError.code == .unknown,
            let message = urlError.userInfo[NSLocalizedDescriptionKey] as? String,
            let code = code(forCurlMessage: message)
        else { return nil }
        var userInfo = urlError.userInfo
        userInfo[NSUnderlyingErrorKey] = urlError as NSError
        return URLError(code, userInfo: userInfo)
    }

    /// The Apple `URLError` code for a libcurl error message, or `nil` when it is not a TLS failure.
    /// - Parameter message: libcurl's message, e.g. `SSL certificate problem: certificate has expired`.
    /// - Returns: The code Apple platforms give the same failure.
    static func code(forCurlMessage message: String) -> URLError.Code? {
        if let reason = message.suffix(afterPrefix: "SSL certificate problem: ") {
            return verifyReasons[reason] ?? .serverCertificateUntrusted
        }
        if certificateRefusals.contains(where: { message.hasPrefix($0) }) {
            return .serverCertificateUntrusted
        }
        if let reason = openSSLReason(in: message) {
            if let alert = reason.suffix(afterMarker: "alert "), let code = alertsAboutOurCertificate[alert] {
                return code
            }
            // Past the handshake, other TLS-layer errors (e.g. "unexpected eof while reading") are
            // a connection cut short, which stays -1: a lost connection.
            let whileTransferring = transferPrefixes.contains(where: { message.hasPrefix($0) })
            return whileTransferring ? nil : .secureConnectionFailed
        }
        if handshakeFailures.contains(where: { message.hasPrefix($0) }) {
            return .secureConnectionFailed
        }
        return nil
    }

    /// OpenSSL verify-error texts with a more precise Apple code than "untrusted".
    private static let verifyReasons: [String: URLError.Code] = [
        "certificate has expired": .serverCertificateHasBadDate,
        "certificate is not yet valid": .serverCertificateNotYetValid,
    ]

    /// libcurl's messages for a server certificate that is refused after the chain check: its
    /// host-name checks, and its result-code texts for peer verification, issuer check, OCSP status
    /// and pinned keys (60, 83, 91, 90).
    private static let certificateRefusals = [
        "SSL: no alternative certificate subject name matches target host name",
        "SSL: certificate subject name ",
        "SSL: unable to obtain common name from peer certificate",
        "SSL peer certificate or SSH remote key was not OK",
        "Issuer check against peer certificate failed",
        "SSL server certificate status verification FAILED",
        "SSL public key does not match pinned public key",
    ]

    /// libcurl's messages for a handshake that failed below the certificate check: its
    /// `SSL_connect` failures (e.g. `SSL_ERROR_SYSCALL`) and its result-code text for 35.
    private static let handshakeFailures = ["OpenSSL SSL_connect: ", "SSL connect error"]

    /// libcurl's prefixes for TLS errors raised while reading or writing the body.
    private static let transferPrefixes = ["OpenSSL SSL_read: ", "OpenSSL SSL_write: "]

    /// Alerts a server sends when it does not accept the client's certificate (OpenSSL writes them
    /// as `sslv3 alert bad certificate`, `tlsv13 alert certificate required`, ...).
    private static let alertsAboutOurCertificate: [String: URLError.Code] = [
        "certificate required": .clientCertificateRequired,
        "bad certificate": .clientCertificateRejected,
        "unsupported certificate": .clientCertificateRejected,
        "certificate revoked": .clientCertificateRejected,
        "certificate expired": .clientCertificateRejected,
        "certificate unknown": .clientCertificateRejected,
        "unknown ca": .clientCertificateRejected,
    ]

    /// The reason of the first OpenSSL error-queue entry from the TLS library in `message`:
    /// `error:<8 hex digits>:SSL routines:<function, may be empty>:<reason>`, where libcurl may
    /// follow the reason with `, errno N`.
    private static func openSSLReason(in message: String) -> String? {
        var rest = Substring(message)
        while let start = rest.range(of: "error:") {
            let fields = rest[start.upperBound...].split(
                separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            rest = rest[start.upperBound...]
            guard fields.count == 4, fields[0].count == 8, fields[0].allSatisfy(\.isHexDigit),
                fields[1] == "SSL routines"
            else { continue }
            let reason = fields[3].range(of: ", errno ").map { fields[3][..<$0.lowerBound] } ?? fields[3]
            return String(reason)
        }
        return nil
    }
}

extension String {
    /// The rest of the string after `prefix`, or `nil` when it does not start with it.
    fileprivate func suffix(afterPrefix prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }

    /// The rest of the string after the first `marker`, or `nil` when `marker` does not occur.
    fileprivate func suffix(afterMarker marker: String) -> String? {
        range(of: marker).map { String(self[$0.upperBound...]) }
    }
}
