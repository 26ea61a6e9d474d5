import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo server used by integration tests, started once per test process on a free port.
///
/// Set `FORMWORK_DEMO_SERVER` to a prebuilt `DemoServer` executable to skip the build; otherwise
/// the first call builds it with `swift build --package-path <repo>/Examples --product DemoServer`.
/// The HTTPS suites start `DemoServerTLS` instead (``DemoServer/tls()``), found the same way
/// (``DemoServerExecutable``).
/// The server runs with `--exit-on-stdin-eof` on a pipe this process keeps open, so it ends with
/// the test process. Every failure throws: a test that needs the server fails, it never skips.
public enum DemoServer {
    /// e.g. "http://127.0.0.1:54321" (no trailing slash). Starts the server on first call.
    public static func baseURL() async throws -> String {
        try await DemoServerLauncher.shared.baseURL()
    }

    /// baseURL + path, e.g. try await DemoServer.url("/weather?city=x")
    public static func url(_ path: String) async throws -> String {
        try await baseURL() + path
    }
}

/// Why the demo server could not be started.
public struct DemoServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}

/// Starts the server once; concurrent callers share the same start (and the same failure).
/// The HTTPS server (``DemoServer/tls()``) is a second process, of `DemoServerTLS`, started the
/// same way on first use.
actor DemoServerLauncher {
    static let shared = DemoServerLauncher()

    /// How long the server may take to print its "listening on" line.
    static let startTimeout: TimeInterval = 60
    /// The line the server prints once it listens, followed by its base URL.
    static let listeningPrefix = "Formwork demo server listening on "

    private var start: Task<RunningServer, any Error>?
    private var tlsStart: Task<RunningServer, any Error>?
    /// Each executable is located (and built) once.
    private var executables: [DemoServerExecutable: Task<URL, any Error>] = [:]

    func baseURL() async throws -> String {
        if let start {
            return try await start.value.baseURLs[0]
        }
        let task = Task { try await Self.launch(.plain, extraArguments: [], listeners: 1) }
        start = task
        return try await task.value.baseURLs[0]
    }

    /// The HTTPS server process: its base URLs (the plain one first, then one per TLS listener
    /// in the order of `TLSDemoServer.arguments`) and its certificates.
    func tlsServer() async throws -> (baseURLs: [String], certificates: TestCertificates) {
        let task =
            tlsStart
            ?? Task {
                let certificates = try await TestCertificates.make()
                let arguments = TLSDemoServer.arguments(for: certificates)
                return try await Self.launch(
                    .tls, extraArguments: arguments, listeners: 1 + TLSDemoServer.listenerCount,
                    certificates: certificates)
            }
        tlsStart = task
        let running = try await task.value
        guard let certificates = running.certificates else {
            throw DemoServerError(description: "DemoServer: the TLS server has no certificates")
        }
        return (running.baseURLs, certificates)
    }

    // MARK: - Launching

    /// Starts `product` with `extraArguments` and waits for its `listeners` "listening on" lines.
    /// - Parameter port: The plain HTTP listener's port; 0 (the default) lets the system choose.
    static func launch(
        _ product: DemoServerExecutable, extraArguments: [String], listeners: Int,
        certificates: TestCertificates? = nil, port: Int = 0
    ) async throws -> RunningServer {
        let executable = try await shared.sharedExecutable(product)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", String(port), "--exit-on-stdin-eof"] + extraArguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        // Only the server may hold its stdin's read end; no other child may inherit our write end.
        _ = fcntl(stdin.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        do {
            try process.run()
        } catch {
            throw DemoServerError(description: "DemoServer: cannot launch \(executable.path): \(error)")
        }
        var baseURLs: [String] = []
        do {
            let lines = try await readListeningLines(
                listeners, from: stdout.fileHandleForReading, timeout: startTimeout)
            for line in lines {
                // e.g. "http://127.0.0.1:54321" or "https://127.0.0.1:54322 (TLS)"
                let rest = line.dropFirst(listeningPrefix.count)
                let baseURL = String(rest.prefix { $0 != " " })
                guard let url = URL(string: baseURL), url.scheme == "http" || url.scheme == "https",
                    url.port != nil
                else {
                    throw DemoServerError(description: "DemoServer: cannot parse a URL from \"\(line)\"")
                }
                baseURLs.append(baseURL)
                log("\(listeningPrefix)\(rest) (pid \(process.processIdentifier))")
            }
        } catch {
            process.terminate()
            throw error
        }
        return RunningServer(
            baseURLs: baseURLs, certificates: certificates, process: process,
            stdin: stdin.fileHandleForWriting)
    }

    /// ``DemoServerExecutable/locate()``, run once per product for every caller.
    private func sharedExecutable(_ product: DemoServerExecutable) async throws -> URL {
        let task = executables[product] ?? Task { try await product.locate() }
        executables[product] = task
        return try await task.value
    }

    /// Reads `handle` on a thread of its own until `count` "listening on" lines, end of file or timeout.
    private static func readListeningLines(_ count: Int, from handle: FileHandle, timeout: TimeInterval)
        async throws -> [String]
    {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = OneShot<Result<[String], any Error>> { continuation.resume(with: $0) }
            let reader = Thread {
                var output = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty {
                        let text = String(decoding: output, as: UTF8.self)
                        outcome.deliver(
                            .failure(
                                DemoServerError(
                                    description: "DemoServer exited before listening; its output: \"\(text)\""
                                )))
                        return
                    }
                    output.append(chunk)
                    let lines = String(decoding: output, as: UTF8.self).split(
                        separator: "\n", omittingEmptySubsequences: false)
                    // The last element is an unfinished line (or empty): only complete lines count.
                    let listening = lines.dropLast().filter { $0.hasPrefix(listeningPrefix) }.map(String.init)
                    if listening.count >= count {
                        outcome.deliver(.success(Array(listening.prefix(count))))
                        return
                    }
                }
            }
            reader.name = "DemoServer stdout"
            reader.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                outcome.deliver(
                    .failure(
                        DemoServerError(
                            description:
                                "DemoServer did not print \"\(listeningPrefix)...\" within \(Int(timeout)) s")
                    ))
            }
        }
    }

    /// Writes `message` and a newline to standard error.
    static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// The launched server. Holding `stdin` (the write end of its standard input) keeps it alive:
/// when this process ends, the pipe closes and the server exits.
struct RunningServer: Sendable {
    /// One per listener, in the order the server printed them (the plain HTTP one first).
    let baseURLs: [String]
    let certificates: TestCertificates?
    let process: Process
    let stdin: FileHandle
}

/// Delivers the first of several racing results (reader thread, timer) exactly once.
private final class OneShot<Value: Sendable>: @unchecked Sendable {  // `delivered` is guarded by `lock`
    private let lock = NSLock()
    private var delivered = false
    private let handler: @Sendable (Value) -> Void

    init(_ handler: @escaping @Sendable (Value) -> Void) {
        self.handler = handler
    }

    func deliver(_ value: Value) {
        let first = lock.withLock {
            defer { delivered = true }
            return !delivered
        }
        if first { handler(value) }
    }
}
