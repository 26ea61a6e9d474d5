import Foundation

/// One run of the `OutboxChild` executable (`Tests/OutboxChild`): its lines of output as they
/// come, a SIGKILL, and how it ended. The crash suite kills it at moments it picks from these
/// lines.
final class OutboxChildRun: Sendable {
    /// How a run ended.
    struct Exit: Sendable, Equatable {
        /// Whether a signal ended it (then `status` is the signal's number).
        var bySignal: Bool
        /// The exit status, or the signal's number.
        var status: Int32

        /// Ended by SIGKILL.
        var wasKilled: Bool { bySignal && status == SIGKILL }
    }

    /// The child's complete lines of standard output, until it closes it (when it ends).
    let lines: AsyncStream<String>
    private let process: Process
    /// The write end of the child's standard input: one byte per step it may take.
    private let input: FileHandle
    private let exits: AsyncStream<Exit>

    /// Starts `OutboxChild` (its standard error goes to this process's).
    /// - Parameters:
    ///   - executable: The `OutboxChild` executable.
    ///   - arguments: Its arguments.
    /// - Throws: When it cannot be started.
    init(_ executable: URL, arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let steps = Pipe()
        process.standardInput = steps
        process.standardError = FileHandle.standardError
        let output = Pipe()
        // No other child started meanwhile may inherit the pipes (it would hold their ends open).
        let ends =
            [output.fileHandleForReading, output.fileHandleForWriting, steps.fileHandleForReading]
            + [steps.fileHandleForWriting]
        for descriptor in ends.map(\.fileDescriptor) {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        // A step written to a child that was just killed must fail with EPIPE, not end this process.
        signal(SIGPIPE, SIG_IGN)
        process.standardOutput = output
        let (exits, exitSink) = AsyncStream.makeStream(of: Exit.self)
        process.terminationHandler = { ended in
            exitSink.yield(
                Exit(bySignal: ended.terminationReason == .uncaughtSignal, status: ended.terminationStatus))
            exitSink.finish()
        }
        let (lines, lineSink) = AsyncStream.makeStream(of: String.self)
        try process.run()
        self.process = process
        self.input = steps.fileHandleForWriting
        self.lines = lines
        self.exits = exits
        let reader = Thread {
            let handle = output.fileHandleForReading
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    lineSink.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[(newline + 1)...])
                }
            }
            lineSink.finish()
        }
        reader.name = "OutboxChild stdout"
        reader.start()
    }

    /// Lets the child take one step (it printed `await`).
    func step() {
        var byte = UInt8(ascii: "g")
        _ = write(input.fileDescriptor, &byte, 1)  // fails harmlessly (EPIPE) if the child has ended
    }

    /// Lets the child run without steps: its standard input ends.
    func runFree() {
        try? input.close()
    }

    /// Kills the child with SIGKILL, unless it has ended.
    func sigkill() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits until the child has ended.
    /// - Returns: How it ended.
    func exit() async -> Exit {
        for await exit in exits { return exit }
        return Exit(bySignal: false, status: -1)  // not reached: the stream yields once before it ends
    }
}
