import Foundation

/// A throwaway certificate authority and two server certificates it signed, made with the
/// `openssl` command line into a fresh temporary folder at test time (no key is ever committed).
///
/// - ``caCertificate``: the CA. No trust store knows it.
/// - ``serverCertificate`` / ``serverKey``: for `127.0.0.1` and `localhost`.
/// - ``mismatchedCertificate`` / ``mismatchedKey``: for `wrong.example` only.
///
/// `openssl` is there wherever Debian's `ca-certificates` is (it depends on it); CI installs it if not.
public struct TestCertificates: Sendable {
    /// The folder that holds every file.
    public let directory: URL
    /// The CA's certificate (PEM).
    public var caCertificate: URL { directory.appendingPathComponent("ca.pem") }
    /// The certificate for `127.0.0.1` and `localhost` (PEM).
    public var serverCertificate: URL { directory.appendingPathComponent("server.pem") }
    /// The private key of ``serverCertificate`` (PEM).
    public var serverKey: URL { directory.appendingPathComponent("server.key") }
    /// The certificate for `wrong.example` (PEM).
    public var mismatchedCertificate: URL { directory.appendingPathComponent("mismatched.pem") }
    /// The private key of ``mismatchedCertificate`` (PEM).
    public var mismatchedKey: URL { directory.appendingPathComponent("mismatched.key") }

    /// Makes the CA and both certificates in a new temporary folder.
    /// - Returns: Where they are.
    /// - Throws: ``DemoServerError`` when `openssl` is missing or fails.
    public static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        let p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await openssl(
            ["req", "-x509"] + p256 + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Formwork Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
        for (name, subjectAltName) in [
            ("server", "IP:127.0.0.1,DNS:localhost"), ("mismatched", "DNS:wrong.example"),
        ] {
            let extensions =
                "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            try Data(extensions.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
            try await openssl(
                ["req", "-new"] + p256 + [
                    "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
                ], in: directory)
            try await openssl(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                    "-CAcreateserial",
                    "-days", "2", "-extfile", "\(name).ext", "-out", "\(name).pem",
                ], in: directory)
        }
        return certificates
    }

    /// Runs `openssl ARGUMENTS` in `directory`; throws with its output when it fails.
    private static func openssl(_ arguments: [String], in directory: URL) async throws {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: ["openssl"] + arguments, directory: directory,
            timeout: 60)
        guard result.status == 0 else {
            let output = String(decoding: result.output, as: UTF8.self)
            throw DemoServerError(
                description:
                    "openssl \(arguments.prefix(2).joined(separator: " ")) failed with status \(result.status)"
                    + " (is the openssl command installed? `apt-get install -y openssl`): \(output)")
        }
    }
}
