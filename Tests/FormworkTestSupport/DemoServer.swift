import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo server used by integration tests, started once per test process on a free port.
///
/// Set `FORMWORK_DEMO_SERVER` to a prebuilt `DemoServer` executable to skip the build; otherwise
/// the first call builds it with `swift build --package-path <repo>/Examples --product DemoServer`.
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
/// The HTTPS server (``DemoServer/tls()``) is a second process, started the same way on first use.
actor DemoServerLauncher {
    static let shared = DemoServerLauncher()

    /// The variable that may name a prebuilt `DemoServer` executable.
    static let executableVariable = "FORMWORK_DEMO_SERVER"
    /// How long the server may take to print its "listening on" line.
    static let startTimeout: TimeInterval = 60
    /// The line the server prints once it listens, followed by its base URL.
    static let listeningPrefix = "Formwork demo server listening on "

    /// `<repo>/Examples`, found from this file's path: `<repo>/Tests/FormworkTestSupport/DemoServer.swift`
    /// (also when compiled through the Examples package's symbolic link to this folder).
    static let examplesDirectory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // FormworkTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // <repo>
        .appendingPathComponent("Examples")

    private var start: Task<RunningServer, any Error>?
    private var tlsStart: Task<RunningServer, any Error>?
    /// Both servers run the same executable: it is located (and built) once.
    private var executable: Task<URL, any Error>?

    func baseURL() async throws -> String {
        if let start {
            return try await start.value.baseURLs[0]
        }
        let task = Task { try await Self.launch(extraArguments: [], listeners: 1) }
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
                    extraArguments: arguments, listeners: 1 + TLSDemoServer.listenerCount,
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

    /// Starts a server with `extraArguments` and waits for its `listeners` "listening on" lines.
    private static func launch(
        extraArguments: [String], listeners: Int, certificates: TestCertificates? = nil
    ) async throws -> RunningServer {
        let executable = try await shared.sharedExecutable()
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", "0", "--exit-on-stdin-eof"] + extraArguments
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

    /// ``locateExecutable()``, run once for every caller.
    private func sharedExecutable() async throws -> URL {
        let task = executable ?? Task { try await Self.locateExecutable() }
        executable = task
        return try await task.value
    }

    /// `FORMWORK_DEMO_SERVER` if set; else a `DemoServer` beside the running test binary (the
    /// Examples package's own tests build it as a dependency, and building it again from inside
    /// `swift test` would wait forever for that package's build lock); else the `DemoServer`
    /// built from `<repo>/Examples`.
    private static func locateExecutable() async throws -> URL {
        if let path = ProcessInfo.processInfo.environment[executableVariable], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw DemoServerError(
                    description: "DemoServer: \(executableVariable)=\(path) is not an executable file")
            }
            return URL(fileURLWithPath: path)
        }
        let beside = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
            .appendingPathComponent("DemoServer")
        if beside.path.contains("/Examples/"), FileManager.default.isExecutableFile(atPath: beside.path) {
            return beside
        }
        let packagePath = examplesDirectory.path
        guard
            FileManager.default.fileExists(
                atPath: examplesDirectory.appendingPathComponent("Package.swift").path)
        else {
            throw DemoServerError(
                description:
                    "DemoServer: no package at \(packagePath) (set \(executableVariable) to a DemoServer executable)"
            )
        }
        log("DemoServer: building \(packagePath) (first use; set \(executableVariable) to skip)")
        let build = try await runSwift(
            ["build", "--package-path", packagePath, "--product", "DemoServer"], captureOutput: false)
        guard build.status == 0 else {
            throw DemoServerError(
                description:
                    "DemoServer: `swift build --package-path \(packagePath) --product DemoServer` failed with status \(build.status) (its output is above)"
            )
        }
        let binPath = try await runSwift(
            ["build", "--package-path", packagePath, "--show-bin-path"], captureOutput: true)
        let directory = String(decoding: binPath.output, as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard binPath.status == 0, !directory.isEmpty else {
            throw DemoServerError(
                description: "DemoServer: `swift build --show-bin-path` failed with status \(binPath.status)")
        }
        let executable = URL(fileURLWithPath: directory).appendingPathComponent("DemoServer")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw DemoServerError(
                description: "DemoServer: the build succeeded but \(executable.path) is missing")
        }
        return executable
    }

    /// Runs `swift ARGUMENTS` via `/usr/bin/env` on a thread of its own (it blocks), with its
    /// stderr, and its stdout unless captured, forwarded to this process's stderr.
    private static func runSwift(_ arguments: [String], captureOutput: Bool) async throws -> (
        status: Int32, output: Data
    ) {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["swift"] + arguments
                process.standardInput = FileHandle.nullDevice
                process.standardError = FileHandle.standardError
                let pipe = Pipe()
                process.standardOutput = captureOutput ? pipe : FileHandle.standardError
                do {
                    try process.run()
                } catch {
                    continuation.resume(
                        throwing: DemoServerError(
                            description: "DemoServer: cannot run `/usr/bin/env swift`: \(error)"))
                    return
                }
                let output = captureOutput ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, output))
            }
            thread.name = "DemoServer swift build"
            thread.start()
        }
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

    private static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// The launched server. Holding `stdin` (the write end of its standard input) keeps it alive:
/// when this process ends, the pipe closes and the server exits.
private struct RunningServer: Sendable {
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
