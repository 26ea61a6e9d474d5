import Foundation

#if os(Linux)
    /// Runs the `HTTPSProbe` helper in a child process that trusts the test CA, without changing
    /// the system's trust store.
    ///
    /// FoundationNetworking has no per-process way to add a CA on Linux: it uses libcurl's built-in
    /// CA bundle (`URLSessionCertificateAuthorityInfoFile` is read on Android only; libcurl and
    /// OpenSSL ignore `SSL_CERT_FILE`/`CURL_CA_BUNDLE` once a bundle is built in, and it never asks a
    /// delegate about server trust). So the child gets a private mount namespace (`unshare`) in
    /// which the test CA is bind-mounted over that bundle: only the child sees it, and the change
    /// ends with the child. Needs root or unprivileged user namespaces; fails loudly otherwise.
    public enum TrustedChild {
        /// The variable that may name a prebuilt `HTTPSProbe` executable.
        static let probeVariable = "FORMWORK_HTTPS_PROBE"

        /// The CA bundles libcurl may be built to read (FoundationNetworking's own list of them).
        static let caBundlePaths = [
            "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
            "/usr/share/ssl/certs/ca-bundle.crt", "/usr/local/share/certs/ca-root-nss.crt",
            "/etc/ssl/cert.pem",
        ]

        /// Covers every CA bundle that exists with the file in `$1`, then runs the rest of the arguments.
        static let script = """
            set -e
            ca="$1"; shift
            covered=0
            for bundle in \(caBundlePaths.joined(separator: " ")); do
                if [ -f "$bundle" ]; then mount --bind "$ca" "$bundle"; covered=1; fi
            done
            if [ "$covered" -ne 1 ]; then echo "no CA bundle found to cover" >&2; exit 3; fi
            exec "$@"
            """

        /// Sends one GET through Formwork from a child that trusts `certificates`' CA.
        /// - Parameters:
        ///   - url: The URL to get.
        ///   - headers: Request headers as `"Name: value"`.
        ///   - certificates: The CA to trust.
        /// - Returns: What the probe reported.
        /// - Throws: ``DemoServerError`` when the child cannot run or prints no report.
        public static func probe(
            _ url: String, headers: [String] = [], trusting certificates: TestCertificates
        )
            async throws -> HTTPSProbeReport
        {
            let probe = try probeExecutable()
            let isolation =
                geteuid() == 0
                ? ["--mount", "--propagation", "private"]
                : ["--user", "--map-root-user", "--mount", "--propagation", "private"]
            let arguments =
                ["unshare"] + isolation + [
                    "sh", "-c", script, "sh", certificates.caCertificate.path, probe.path, url,
                ]
                + headers
            let result = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, timeout: 90)
            let errorText = String(decoding: result.errorOutput, as: UTF8.self)
            guard result.status == 0,
                let report = try? JSONDecoder().decode(HTTPSProbeReport.self, from: result.output)
            else {
                throw DemoServerError(
                    description:
                        "HTTPSProbe in a private mount namespace failed (status \(result.status)): \(errorText)"
                        + " \(String(decoding: result.output, as: UTF8.self))")
            }
            return report
        }

        /// `FORMWORK_HTTPS_PROBE` if set, else `HTTPSProbe` beside the running test executable
        /// (`swift build --build-tests` and `swift test` build it with everything else).
        static func probeExecutable() throws -> URL {
            if let path = ProcessInfo.processInfo.environment[probeVariable], !path.isEmpty {
                return URL(fileURLWithPath: path)
            }
            let directory = Bundle.main.executableURL?.deletingLastPathComponent()
            guard let probe = directory?.appendingPathComponent("HTTPSProbe"),
                FileManager.default.isExecutableFile(atPath: probe.path)
            else {
                throw DemoServerError(
                    description:
                        "HTTPSProbe is not beside the test executable in \(directory?.path ?? "?"): build it with "
                        + "`swift build --build-tests`, or set \(probeVariable)")
            }
            return probe
        }
    }
#endif
