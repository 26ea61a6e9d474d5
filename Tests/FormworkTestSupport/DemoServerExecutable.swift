import Foundation

/// The demo server's two executables, and how the tests find (or build) each one.
///
/// `DemoServer` is plain HTTP; `DemoServerTLS` is the same server with HTTPS listeners, on
/// swift-nio-ssl, started only by the HTTPS suites (so a run without them never compiles a TLS
/// library). Each is `FORMWORK_DEMO_SERVER` / `FORMWORK_DEMO_SERVER_TLS` if set (without the second,
/// `DemoServerTLS` beside the first), else the one beside the running test binary in the Examples
/// package, else built from `<repo>/Examples`.
enum DemoServerExecutable: String, Sendable {
    case plain = "DemoServer"
    case tls = "DemoServerTLS"

    /// The variable that may name a prebuilt executable of this product.
    var variable: String {
        switch self {
        case .plain: "FORMWORK_DEMO_SERVER"
        case .tls: "FORMWORK_DEMO_SERVER_TLS"
        }
    }

    /// `<repo>/Examples`, found from this file's path: `<repo>/Tests/FormworkTestSupport/...`
    /// (also when compiled through the Examples package's symbolic link to this folder).
    static let examplesDirectory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // FormworkTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // <repo>
        .appendingPathComponent("Examples")

    /// Its variable if set; for `DemoServerTLS`, else the one beside `FORMWORK_DEMO_SERVER` if
    /// that is set; else the executable beside the running test binary (the Examples package's
    /// own tests build both as dependencies, and building them again from inside `swift test`
    /// would wait forever for that package's build lock); else the one built from `<repo>/Examples`.
    /// - Returns: The executable's location.
    /// - Throws: ``DemoServerError`` when a named file is not executable or the build fails.
    func locate() async throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[variable], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw DemoServerError(
                    description: "DemoServer: \(variable)=\(path) is not an executable file")
            }
            return URL(fileURLWithPath: path)
        }
        if self == .tls, let plain = environment[Self.plain.variable], !plain.isEmpty {
            let directory = URL(fileURLWithPath: plain).deletingLastPathComponent()
            let beside = directory.appendingPathComponent(rawValue)
            guard FileManager.default.isExecutableFile(atPath: beside.path) else {
                throw DemoServerError(
                    description:
                        "DemoServer: no executable \(beside.path) beside \(Self.plain.variable)=\(plain): build it with `swift build --package-path Examples --product \(rawValue)` or set \(variable)"
                )
            }
            return beside
        }
        let beside = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
            .appendingPathComponent(rawValue)
        if beside.path.contains("/Examples/"), FileManager.default.isExecutableFile(atPath: beside.path) {
            return beside
        }
        return try await build()
    }

    /// `swift build --package-path <repo>/Examples --product <this>`, then its path in the bin directory.
    private func build() async throws -> URL {
        let packagePath = Self.examplesDirectory.path
        guard
            FileManager.default.fileExists(
                atPath: Self.examplesDirectory.appendingPathComponent("Package.swift").path)
        else {
            throw DemoServerError(
                description:
                    "DemoServer: no package at \(packagePath) (set \(variable) to a \(rawValue) executable)")
        }
        DemoServerLauncher.log(
            "DemoServer: building \(rawValue) in \(packagePath) (first use; set \(variable) to skip)")
        let build = try await Self.runSwift(
            ["build", "--package-path", packagePath, "--product", rawValue], captureOutput: false)
        guard build.status == 0 else {
            throw DemoServerError(
                description:
                    "DemoServer: `swift build --package-path \(packagePath) --product \(rawValue)` failed with status \(build.status) (its output is above)"
            )
        }
        let binPath = try await Self.runSwift(
            ["build", "--package-path", packagePath, "--show-bin-path"], captureOutput: true)
        let directory = String(decoding: binPath.output, as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard binPath.status == 0, !directory.isEmpty else {
            throw DemoServerError(
                description: "DemoServer: `swift build --show-bin-path` failed with status \(binPath.status)")
        }
        let executable = URL(fileURLWithPath: directory).appendingPathComponent(rawValue)
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
}
