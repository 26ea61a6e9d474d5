import Foundation

/// Certificates a set of hosts is trusted through instead of the system's roots: a private CA, or
/// a development server's own certificate.
///
/// Only the hosts named here are evaluated against these certificates (never every host by
/// accident); for them the system's roots are not used. A ``PinSet`` covering the same hosts is
/// checked after this evaluation.
///
/// ```swift
/// let anchors = try TrustAnchors(hosts: ["internal.example.com"], pem: privateCAPEM)
/// ```
public struct TrustAnchors: Sendable, Hashable {
    /// The host patterns, as given (written as for a ``PinSet``).
    public var hosts: [String] { patterns.patterns.map(\.description) }
    /// The anchor certificates, in DER.
    public let certificates: [Data]
    /// The hosts, read.
    let patterns: HostPatterns

    /// Creates anchors for some hosts.
    /// - Parameters:
    ///   - hosts: The host patterns the anchors are for (at least one).
    ///   - certificates: The anchor certificates, in DER (at least one).
    /// - Throws: A ``NetworkError/Kind/invalidTrustPolicy`` error:
    ///   ``NetworkError/Reason/invalidCertificate`` when there is no certificate or one cannot be
    ///   read, ``NetworkError/Reason/invalidHostPattern`` for a host pattern that cannot be read.
    public init(hosts: [String], certificates: [Data]) throws(NetworkError) {
        self.patterns = try HostPatterns(hosts)
        guard !certificates.isEmpty, certificates.allSatisfy({ CertificateReader.pin(of: $0) != nil }) else {
            throw NetworkError(
                .invalidTrustPolicy,
                failureReason: certificates.isEmpty
                    ? "Trust anchors need at least one certificate."
                    : "A trust anchor is not an X.509 certificate in DER.",
                details: .init(reason: .invalidCertificate))
        }
        self.certificates = certificates
    }

    /// Creates anchors for some hosts from PEM text (every `BEGIN CERTIFICATE` block in it).
    /// - Parameters:
    ///   - hosts: The host patterns the anchors are for (at least one).
    ///   - pem: The certificates, in PEM.
    /// - Throws: As ``init(hosts:certificates:)``.
    public init(hosts: [String], pem: String) throws(NetworkError) {
        try self.init(hosts: hosts, certificates: CertificateReader.certificates(inPEM: pem))
    }
}

/// A client certificate and its private key (mutual TLS), presented to a set of hosts that ask
/// for one.
///
/// The identity is a PKCS #12 archive (`.p12`, `.pfx`), the form every platform imports: Apple's
/// `SecPKCS12Import` and NIOSSL's `NIOSSLPKCS12Bundle` read the same bytes.
///
/// ```swift
/// let identity = try ClientIdentity(hosts: ["mtls.example.com"], pkcs12: p12Data, password: "secret")
/// ```
public struct ClientIdentity: Sendable, Hashable {
    /// The host patterns, as given (written as for a ``PinSet``).
    public var hosts: [String] { patterns.patterns.map(\.description) }
    /// The PKCS #12 archive: the client certificate (and its chain) with the private key.
    public let pkcs12: Data
    /// The archive's password.
    public let password: String
    /// The hosts, read.
    let patterns: HostPatterns

    /// Creates a client identity for some hosts.
    /// - Parameters:
    ///   - hosts: The host patterns that get the identity (at least one).
    ///   - pkcs12: The PKCS #12 archive.
    ///   - password: Its password.
    /// - Throws: A ``NetworkError/Kind/invalidTrustPolicy`` error:
    ///   ``NetworkError/Reason/invalidCertificate`` for an empty archive,
    ///   ``NetworkError/Reason/invalidHostPattern`` for a host pattern that cannot be read. (The
    ///   archive itself is opened by the transport, which fails the request if it cannot.)
    public init(hosts: [String], pkcs12: Data, password: String) throws(NetworkError) {
        self.patterns = try HostPatterns(hosts)
        guard !pkcs12.isEmpty else {
            throw NetworkError(
                .invalidTrustPolicy, failureReason: "The client identity's PKCS #12 archive is empty.",
                details: .init(reason: .invalidCertificate))
        }
        self.pkcs12 = pkcs12
        self.password = password
    }
}
