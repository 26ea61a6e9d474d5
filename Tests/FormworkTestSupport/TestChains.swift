import Foundation

/// Certificate chains for the trust tests, made with the `openssl` command line into a fresh
/// temporary folder at test time (no key is ever committed):
///
/// - a root CA → an intermediate CA → a leaf for `127.0.0.1` and `localhost` (``leaf``), and a
///   second leaf on a new key from the same intermediate (``rotatedLeaf``: a key rotation);
/// - a foreign root and a leaf it signed for the same names (``foreignLeaf``);
/// - a leaf of the intermediate whose validity ended before it began (``expiredLeaf``);
/// - a client certificate signed by the root, as PEM and as a PKCS #12 archive (``clientPKCS12``,
///   password ``clientPassword``).
///
/// Each certificate has its pin (``pin(of:)``) computed by `openssl` itself, so the tests compare
/// Formwork's reading of a certificate with openssl's.
public struct TestChains: Sendable {
    /// A certificate made for the tests.
    public struct Certificate: Sendable {
        /// The certificate, PEM.
        public let pem: URL
        /// Its private key, PEM.
        public let key: URL
        /// The certificate, DER.
        public let der: Data
        /// The base64 SHA-256 hash of its SubjectPublicKeyInfo, as openssl computes it.
        public let pin: String
    }

    /// The folder that holds every file.
    public let directory: URL
    /// The root CA.
    public let root: Certificate
    /// The intermediate CA, signed by the root.
    public let intermediate: Certificate
    /// The leaf for `127.0.0.1` and `localhost`, signed by the intermediate.
    public let leaf: Certificate
    /// A leaf for the same names on a new key, signed by the intermediate.
    public let rotatedLeaf: Certificate
    /// A leaf for the same names, signed by the intermediate, already expired.
    public let expiredLeaf: Certificate
    /// A root no test trusts.
    public let foreignRoot: Certificate
    /// A leaf for the same names, signed by the foreign root.
    public let foreignLeaf: Certificate
    /// A client certificate (`clientAuth`), signed by the root.
    public let client: Certificate
    /// The client certificate and key as PKCS #12.
    public let clientPKCS12: Data
    /// The password of ``clientPKCS12``.
    public let clientPassword = "formwork-test"

    /// A PEM file with `certificate` followed by the intermediate (what a server sends for a leaf
    /// of the intermediate).
    public func chainFile(for certificate: Certificate) throws -> URL {
        let url = directory.appendingPathComponent(UUID().uuidString + "-chain.pem")
        let text =
            try String(contentsOf: certificate.pem, encoding: .utf8)
            + String(contentsOf: intermediate.pem, encoding: .utf8)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A PEM file with `certificates` in that order (what a server sends).
    public func chainFile(_ certificates: [Certificate]) throws -> URL {
        let url = directory.appendingPathComponent(UUID().uuidString + "-chain.pem")
        let text = try certificates.map { try String(contentsOf: $0.pem, encoding: .utf8) }.joined()
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Makes every certificate in a new temporary folder.
    /// - Returns: The chains.
    /// - Throws: ``DemoServerError`` when `openssl` is missing or fails.
    public static func make() async throws -> TestChains {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-chains-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let maker = Maker(directory: directory)
        _ = try await maker.root("root", subject: "Formwork Test Root")
        _ = try await maker.issue(
            "intermediate", by: "root",
            extensions: "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n"
        )
        let server =
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        _ = try await maker.issue("leaf", by: "intermediate", extensions: server)
        _ = try await maker.issue("rotated", by: "intermediate", extensions: server)
        _ = try await maker.issue("expired", by: "intermediate", extensions: server, days: -1)
        _ = try await maker.root("foreign-root", subject: "Formwork Foreign Root")
        _ = try await maker.issue("foreign-leaf", by: "foreign-root", extensions: server)
        _ = try await maker.issue(
            "client", by: "root", extensions: "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        try await maker.openssl([
            "pkcs12", "-export", "-inkey", "client.key", "-in", "client.pem", "-passout",
            "pass:formwork-test",
            "-out", "client.p12",
        ])
        return TestChains(
            directory: directory, root: try await maker.certificate("root"),
            intermediate: try await maker.certificate("intermediate"),
            leaf: try await maker.certificate("leaf"),
            rotatedLeaf: try await maker.certificate("rotated"),
            expiredLeaf: try await maker.certificate("expired"),
            foreignRoot: try await maker.certificate("foreign-root"),
            foreignLeaf: try await maker.certificate("foreign-leaf"),
            client: try await maker.certificate("client"),
            clientPKCS12: try Data(contentsOf: directory.appendingPathComponent("client.p12")))
    }

    private struct Maker {
        let directory: URL
        let p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]

        func root(_ name: String, subject: String) async throws -> String {
            try await openssl(
                ["req", "-x509"] + p256 + [
                    "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=\(subject)",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign",
                ])
            return name
        }

        /// `days` -1: valid until a day before it was made (expired).
        func issue(_ name: String, by issuer: String, extensions: String, days: Int = 2) async throws
            -> String
        {
            try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
            try await openssl(
                ["req", "-new"] + p256 + [
                    "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
                ])
            try await openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                "-CAcreateserial", "-days", String(days), "-extfile", "\(name).ext", "-out", "\(name).pem",
            ])
            return name
        }

        func certificate(_ name: String) async throws -> Certificate {
            try await openssl(["x509", "-in", "\(name).pem", "-outform", "der", "-out", "\(name).der"])
            try await openssl(["x509", "-in", "\(name).pem", "-noout", "-pubkey", "-out", "\(name).pub"])
            try await openssl([
                "pkey", "-pubin", "-in", "\(name).pub", "-outform", "der", "-out", "\(name).spki",
            ])
            try await openssl(["dgst", "-sha256", "-binary", "-out", "\(name).sha", "\(name).spki"])
            let hash = try Data(contentsOf: directory.appendingPathComponent("\(name).sha"))
            return Certificate(
                pem: directory.appendingPathComponent("\(name).pem"),
                key: directory.appendingPathComponent("\(name).key"),
                der: try Data(contentsOf: directory.appendingPathComponent("\(name).der")),
                pin: hash.base64EncodedString())
        }

        func openssl(_ arguments: [String]) async throws {
            let result = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), arguments: ["openssl"] + arguments,
                directory: directory,
                timeout: 60)
            guard result.status == 0 else {
                throw DemoServerError(
                    description: "openssl \(arguments.prefix(2).joined(separator: " ")) failed with status "
                        + "\(result.status): \(String(decoding: result.output, as: UTF8.self))")
            }
        }
    }
}
