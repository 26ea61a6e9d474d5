import Foundation

/// Starts the `DemoServer` executable built next to the running one, on a free port, and stops it
/// when this process ends (the server exits when its stdin closes).
public final class DemoServerProcess: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:54321`.
    public let baseURL: String
    private let process: Process
    private let stdin: FileHandle

    /// Why the server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// Creates a failure.
        /// - Parameter description: What went wrong.
        public init(description: String) {
            self.description = description
        }
    }

    /// Launches the server and waits (up to 30 s) for its "listening on" line.
    /// - Parameter port: The port to listen on; 0 (the default) for a free one.
    public init(port: Int = 0) throws {
        let child = try ChildProcess(
            executable: "DemoServer", arguments: ["--port", String(port), "--exit-on-stdin-eof"],
            announcement: "Formwork demo server listening on ")
        self.baseURL = child.announced
        self.process = child.process
        self.stdin = child.stdin
    }

    deinit {
        try? stdin.close()
        process.waitUntilExit()
    }
}

/// An executable built next to the running one, started with a pipe on its stdin (it exits when
/// that closes) and read until it prints the line that starts with `announcement`.
struct ChildProcess {
    let process: Process
    let stdin: FileHandle
    /// The rest of the announcement line, trimmed (e.g. the URL it listens on).
    let announced: String

    init(executable name: String, arguments: [String], announcement prefix: String) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw DemoServerProcess.Failure(
                description: "no \(name) next to \(CommandLine.arguments[0]); build the Examples package")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        var line: String?
        while line == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            line = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix(prefix) }.map(String.init)
        }
        guard let line else {
            process.terminate()
            throw DemoServerProcess.Failure(description: "\(name) did not report its address")
        }
        self.announced = String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
        self.process = process
        self.stdin = input.fileHandleForWriting
    }
}

/// Peak resident memory of this process so far, in bytes.
public func peakResidentBytes() -> Int64 {
    var usage = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int64(usage.ru_maxrss) * 1024  // kilobytes on Linux
    #else
        getrusage(RUSAGE_SELF, &usage)
        return Int64(usage.ru_maxrss)  // bytes on Darwin
    #endif
}

/// `1.5 GiB`, `12.0 MiB`...
public func formatBytes(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
}
