import Foundation

/// Runs a short-lived helper program (`openssl`, the HTTPS probe) and collects what it printed.
enum ChildProcess {
    /// What a finished child printed and how it ended.
    struct Result: Sendable {
        /// The exit status (or the signal number when it was killed).
        let status: Int32
        /// Standard output.
        let output: Data
        /// Standard error.
        let errorOutput: Data
    }

    /// Runs `executable` with `arguments` on a thread of its own (it blocks), ends it with
    /// SIGTERM if it runs longer than `timeout` seconds, and returns what it printed.
    static func run(
        _ executable: URL, arguments: [String], directory: URL? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let process = Process()
                process.executableURL = executable
                process.arguments = arguments
                process.currentDirectoryURL = directory
                if let environment { process.environment = environment }
                process.standardInput = FileHandle.nullDevice
                let output = Pipe()
                let errorOutput = Pipe()
                process.standardOutput = output
                process.standardError = errorOutput
                do {
                    try process.run()
                } catch {
                    continuation.resume(
                        throwing: DemoServerError(description: "cannot run \(executable.path): \(error)"))
                    return
                }
                let watchdog = DispatchWorkItem { process.terminate() }
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
                // Read standard error on another thread, so that neither pipe can fill up and block.
                let errorData = WrittenOnce<Data>(Data())
                let errorReader = Thread {
                    errorData.set(errorOutput.fileHandleForReading.readDataToEndOfFile())
                }
                errorReader.start()
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                watchdog.cancel()
                errorData.waitUntilSet()
                continuation.resume(
                    returning: Result(
                        status: process.terminationStatus, output: data, errorOutput: errorData.value))
            }
            thread.name = "child \(executable.lastPathComponent)"
            thread.start()
        }
    }
}

/// A value written once by one thread and read by another after it was written.
private final class WrittenOnce<Value: Sendable>: @unchecked Sendable {  // `stored` is guarded by `condition`
    private let condition = NSCondition()
    private var stored: Value
    private var isSet = false

    init(_ value: Value) {
        stored = value
    }

    func set(_ value: Value) {
        condition.withLock {
            stored = value
            isSet = true
            condition.broadcast()
        }
    }

    func waitUntilSet() {
        condition.withLock {
            while !isSet { condition.wait() }
        }
    }

    var value: Value { condition.withLock { stored } }
}
