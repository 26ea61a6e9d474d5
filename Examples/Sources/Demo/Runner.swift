import ExampleSupport
import Foundation

/// Starts the demo server, plays the scenarios in order, and sums up.
@MainActor
final class Runner {
    private let options: Options
    private let console: Console
    private var signalSource: (any DispatchSourceSignal)?

    /// The scenarios, in the order they play.
    static func scenarios(_ options: Options) -> [any Scenario] {
        [
            LoadingMaskScenario(),
            StackedMasksScenario(),
            ControlsScenario(),
            DownloadResumeScenario(size: options.downloadSize),
            UploadScenario(size: options.uploadSize),
            MessagesScenario(),
            ReloadScenario(),
            StreamScenario(),
            ModelScenario(),
            OutboxScenario(),
            WebSocketScenario(),
        ]
    }

    init(options: Options) {
        self.options = options
        console = Console(live: options.mode != .auto && Console.stdoutIsTerminal)
    }

    /// Plays everything; returns the exit status.
    func run() async -> Int32 {
        restoreTerminalOnInterrupt()
        if options.mode == .interactive { Keyboard.takeOver() }
        console.hideCursor()
        defer {
            console.showCursor()
            Keyboard.restore()
        }
        let mode =
            switch options.mode {
            case .standard: "plays by itself; --interactive to step through, --auto for CI"
            case .interactive: "interactive: Enter between scenarios, r at the reload prompt"
            case .auto: "auto: no pauses, plain output"
            }
        console.line(
            console.paint("Formwork demo", .bold) + " — the MBNetwork hooks on a headless UI model (\(mode))")
        console.line("Starting the demo server…")
        let server: DemoServerProcess
        do {
            server = try DemoServerProcess()
        } catch {
            console.line(console.paint("Demo FAILED: the demo server did not start: \(error)", .red))
            console.line("Build it with: swift build --package-path Examples --product DemoServer")
            return 1
        }
        console.line("Demo server listening on \(server.baseURL)")

        let stage = Stage(base: server.baseURL, options: options, console: console)
        let all = Self.scenarios(options)
        let chosen = all.indices.filter { options.only.isEmpty || options.only.contains($0 + 1) }
        var failures: [(Int, String)] = []
        var checks = 0
        let started = Date()
        for (position, index) in chosen.enumerated() {
            if options.mode == .interactive, position > 0 {
                console.line(console.paint("Press Enter for the next scenario…", .dim))
                _ = await Keyboard.waitForKey(in: ["\n"])
            }
            let scenario = all[index]
            console.line()
            console.line(console.paint("[\(index + 1)/\(all.count)] \(scenario.title)", .bold, .cyan))
            console.line("  " + scenario.summary)
            stage.beginScenario()
            let failure = await play(scenario, on: stage)
            stage.board.end()
            checks += stage.checksPassed
            if let failure {
                failures.append((index + 1, failure.description))
                console.line(console.paint("  ✗ FAILED: \(failure.description)", .red, .bold))
            } else {
                console.line(
                    console.paint("  Scenario \(index + 1) OK (\(stage.checksPassed) checks)", .green))
            }
        }
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        console.line()
        withExtendedLifetime(server) {}
        guard failures.isEmpty else {
            let list = failures.map { "scenario \($0.0): \($0.1)" }.joined(separator: "; ")
            console.line(
                console.paint(
                    "Demo FAILED: \(failures.count) of \(chosen.count) scenarios did not behave (\(list))",
                    .red,
                    .bold))
            return 1
        }
        console.line(
            console.paint("Demo finished: \(chosen.count) scenarios OK", .green, .bold)
                + " (\(checks) checks, \(seconds) s)")
        return 0
    }

    /// Plays one scenario within its time limit (an hour when a person is pressing the keys);
    /// returns why it failed, if it did.
    private func play(_ scenario: any Scenario, on stage: Stage) async -> DemoFailure? {
        let limit = options.mode == .interactive ? .seconds(3600) : scenario.timeLimit
        let result = FirstResult()
        return await withCheckedContinuation { continuation in
            result.continuation = continuation
            Task {
                do {
                    try await scenario.run(on: stage)
                    result.deliver(nil)
                } catch let failure as DemoFailure {
                    result.deliver(failure)
                } catch {
                    result.deliver(DemoFailure("\(error)"))
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                result.deliver(DemoFailure("did not finish within \(limit)"))
            }
        }
    }

    /// Ctrl-C: show the cursor and restore the terminal before leaving.
    private func restoreTerminalOnInterrupt() {
        let live = console.isLive
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            Keyboard.restore()
            if live { FileHandle.standardOutput.write(Data("\u{1B}[?25h\n".utf8)) }
            exit(130)
        }
        source.resume()
        signalSource = source
    }
}

/// Hands the first of several results to a continuation (the scenario's end, or its time limit).
@MainActor
private final class FirstResult {
    var continuation: CheckedContinuation<DemoFailure?, Never>?

    func deliver(_ failure: DemoFailure?) {
        continuation?.resume(returning: failure)
        continuation = nil
    }
}
