import Foundation

/// The public keys a set of hosts may present: SHA-256 hashes of SubjectPublicKeyInfo, in base64
/// (what `openssl ... | openssl dgst -sha256 -binary | base64` prints; see the "Trusting servers"
/// article).
///
/// A request to a host of the set passes when **any** certificate of the chain the server presents
/// (its leaf, an intermediate or the root) has one of the pins: a leaf re-issued on the same key
/// passes, and so does any leaf of a pinned CA. The system's own evaluation (or the host's
/// ``TrustAnchors``) runs first; pins only narrow what it accepts.
///
/// ```swift
/// let pins = try PinSet(
///     hosts: ["api.example.com", "*.cdn.example.com"],
///     pins: [
///         "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=",  // the key in use
///         "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=",  // the backup key, kept offline
///     ],
///     expires: Date(timeIntervalSinceNow: 180 * 24 * 3600))
/// ```
///
/// Hosts are written `api.example.com` (that host), `*.example.com` (one label before
/// `example.com`) or `**.example.com` (`example.com` and every host below it). When several sets
/// of a policy cover a host, the most specific pattern wins.
public struct PinSet: Sendable, Hashable {
    /// Whether a mismatch stops the request or is only reported.
    public enum Mode: Sendable, Hashable {
        /// A chain without a pinned key fails the request with a ``NetworkError/Kind/serverTrust``
        /// error.
        case enforce
        /// A chain without a pinned key is reported (a ``TrustReport``), and the request goes on:
        /// for rolling pins out.
        case reportOnly
    }

    /// The host patterns, as given.
    public var hosts: [String] { patterns.patterns.map(\.description) }
    /// The pins: base64 SHA-256 hashes of SubjectPublicKeyInfo.
    public let pins: Set<String>
    /// After this date the set is not enforced (and each request to its hosts is reported as
    /// ``TrustReport/Outcome/pinSetExpired``), so an app that is never updated cannot lock its
    /// users out. `nil`: never.
    public let expires: Date?
    /// Whether a mismatch stops the request or is only reported.
    public let mode: Mode
    /// The hosts, read.
    let patterns: HostPatterns

    /// Creates a pin set.
    /// - Parameters:
    ///   - hosts: The host patterns the set covers (at least one).
    ///   - pins: The pins, at least two: the key in use and a backup key (kept offline, for a
    ///     rotation that does not wait for an app update). A pin may be written with the prefix
    ///     `sha256/`.
    ///   - expires: When the set stops being enforced; `nil`: never. Defaults to `nil`.
    ///   - mode: Whether a mismatch stops the request or is only reported. Defaults to
    ///     ``Mode/enforce``.
    ///   - allowsSinglePin: Set to `true` to say, in code, that the set knowingly has no backup
    ///     pin. Defaults to `false`.
    /// - Throws: A ``NetworkError/Kind/invalidTrustPolicy`` error: ``NetworkError/Reason/missingBackupPin``
    ///   for fewer than two distinct pins (unless `allowsSinglePin`), ``NetworkError/Reason/invalidPin``
    ///   for a pin that is not a base64 SHA-256 hash, ``NetworkError/Reason/invalidHostPattern`` for
    ///   a host pattern that cannot be read.
    public init(
        hosts: [String], pins: [String], expires: Date? = nil, mode: Mode = .enforce,
        allowsSinglePin: Bool = false
    ) throws(NetworkError) {
        let patterns = try HostPatterns(hosts)
        var read: Set<String> = []
        for pin in pins {
            let text = pin.hasPrefix("sha256/") ? String(pin.dropFirst(7)) : pin
            guard let hash = Data(base64Encoded: text), hash.count == 32 else {
                throw NetworkError(
                    .invalidTrustPolicy,
                    failureReason:
                        "The pin \"\(pin)\" is not a base64 SHA-256 hash (44 characters ending in \"=\"): "
                        + "see the \"Trusting servers\" article for the openssl command that prints one.",
                    details: .init(reason: .invalidPin))
            }
            read.insert(hash.base64EncodedString())
        }
        guard read.count >= 2 || (allowsSinglePin && read.count == 1) else {
            let hostList = patterns.patterns.map(\.description).joined(separator: ", ")
            throw NetworkError(
                .invalidTrustPolicy,
                failureReason: read.isEmpty
                    ? "The pin set for \(hostList) has no pin."
                    : "The pin set for \(hostList) has one pin and no backup: add the pin of a backup key "
                        + "(kept offline) so that the server's key can change without locking users out, "
                        + "or pass allowsSinglePin: true to say the set knowingly has one.",
                details: .init(reason: .missingBackupPin, host: hostList))
        }
        self.patterns = patterns
        self.pins = read
        self.expires = expires
        self.mode = mode
    }

    /// The pin of a certificate: the base64 SHA-256 hash of its SubjectPublicKeyInfo.
    /// - Parameter certificate: The certificate, in DER (or PEM: the first certificate of the text).
    /// - Returns: The pin.
    /// - Throws: A ``NetworkError/Kind/invalidTrustPolicy`` error
    ///   (``NetworkError/Reason/invalidCertificate``) when `certificate` is not a certificate.
    public static func pin(ofCertificate certificate: Data) throws(NetworkError) -> String {
        let der =
            CertificateReader.pin(of: certificate) == nil
            ? CertificateReader.certificates(inPEM: String(decoding: certificate, as: UTF8.self)).first
            : certificate
        guard let der, let pin = CertificateReader.pin(of: der) else {
            throw NetworkError(
                .invalidTrustPolicy, failureReason: "The data is not an X.509 certificate (DER or PEM).",
                details: .init(reason: .invalidCertificate))
        }
        return pin
    }

    /// Whether the set is past its expiry at `now`.
    func isExpired(at now: Date) -> Bool {
        expires.map { now >= $0 } ?? false
    }
}
