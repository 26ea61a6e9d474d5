import Formwork
import Foundation

/// One scenario of the demo: it builds headless views, sends requests with hooks, lets the board
/// draw what happens, and checks that the model did what the output shows.
@MainActor
protocol Scenario {
    /// A short title.
    var title: String { get }
    /// What it shows, in a line or two.
    var summary: String { get }
    /// The most time it may take (beyond it, it fails).
    var timeLimit: Duration { get }
    /// Plays the scenario.
    /// - Throws: ``DemoFailure`` when something did not behave.
    func run(on stage: Stage) async throws
}

extension Scenario {
    var timeLimit: Duration { .seconds(60) }
}

/// What scenarios play on: the server, the board that draws, pacing and checks.
@MainActor
final class Stage {
    /// The demo server's base URL, e.g. `http://127.0.0.1:54321`.
    let base: String
    /// The command line.
    let options: Options
    /// Draws the headless model.
    let board: Board
    /// Wakes waits when something changes.
    let hub: ChangeHub
    /// Where output goes.
    let console: Console
    /// Checks passed in the current scenario.
    private(set) var checksPassed = 0

    init(base: String, options: Options, console: Console) {
        self.base = base
        self.options = options
        self.console = console
        hub = ChangeHub()
        board = Board(console: console, hub: hub)
    }

    /// `true` when the demo paces itself for people (not `--auto`).
    var isPaced: Bool { options.mode != .auto }

    /// A server delay for slow API calls: as given when paced, a quarter of it with `--auto`
    /// (still long enough for requests to overlap).
    func delay(_ milliseconds: Int) -> Int {
        isPaced ? milliseconds : milliseconds / 4
    }

    /// A pause for readability; none with `--auto`.
    func pause(_ seconds: Double) async {
        guard isPaced else { return }
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }

    /// Prints narration above the live widgets.
    func say(_ text: String) {
        board.note("  " + text)
    }

    /// Prints the code a step runs, dimmed: one line per link of the chain.
    func code(_ lines: String...) {
        for line in lines {
            board.note("  " + console.paint("› " + line, .dim))
        }
    }

    /// Checks a condition the output claims: prints it with a tick, or fails the scenario.
    /// - Throws: ``DemoFailure`` when `condition` is false.
    func check(_ condition: Bool, _ claim: String) throws {
        guard condition else { throw DemoFailure("expected: \(claim)") }
        checksPassed += 1
        board.note("  " + console.paint("✓", .green) + " " + claim)
    }

    /// Waits until `condition` holds, re-checked after every change of the model.
    func wait(
        for what: String, timeout: Duration = .seconds(30), until condition: @escaping @MainActor () -> Bool
    ) async throws {
        try await hub.wait(for: what, timeout: timeout, until: condition)
    }

    /// Starts a scenario's picture.
    func beginScenario() {
        checksPassed = 0
        hub.observer = nil
        board.begin()
    }

    /// Looks at the model from a handler chained on `request` (so right after its hooks ended for
    /// the attempt) and keeps what `look` saw.
    func probe<Value>(
        _ request: some DataResponding, _ look: @escaping @MainActor (DataResponse<Data?>) -> Value
    ) -> Probe<Value> {
        let probe = Probe<Value>()
        request.response { [hub] response in
            probe.value = look(response)
            hub.notify()
        }
        return probe
    }

    /// Waits for a probe's value.
    func value<Value>(of probe: Probe<Value>, _ what: String, timeout: Duration = .seconds(30)) async throws
        -> Value
    {
        try await wait(for: what, timeout: timeout) { probe.value != nil }
        guard let value = probe.value else { throw DemoFailure("no value for \(what)") }
        return value
    }
}

/// What a handler saw when its request ended.
@MainActor
final class Probe<Value> {
    /// Set once the handler ran.
    var value: Value?
}
