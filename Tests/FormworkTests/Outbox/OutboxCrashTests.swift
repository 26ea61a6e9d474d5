import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Issue 26's crash test: child processes (`OutboxChild`) enqueue 200 requests (every 10th a
/// file upload) while the server is down and send them once it is up, and are killed with
/// SIGKILL 50 times at random moments — while enqueuing, while sending, and just after the server
/// applied a request but before the outbox learnt it; a last child on the same directory finishes
/// the work. The server must have applied each request exactly once, and the directory must hold
/// nothing afterwards.
///
/// The moments are drawn from a seeded generator; its seed is in every failure's message, and
/// `FORMWORK_OUTBOX_CRASH_SEED=<seed>` draws the same plan again (the machine's timing still varies).
@Suite("Outbox crash safety", .serialized)
struct OutboxCrashTests {
    /// The requests the child makes (`OutboxChild.requestCount`).
    static let requestCount = 200
    /// Kills while the child enqueues (the server is down).
    static let enqueueKills = 15
    /// Kills at random moments while it sends.
    static let sendingKills = 25
    /// Runs in which the child kills itself as soon as the Nth response arrived (`die-after-N`).
    static let afterApplyKills = 10

    /// `OutboxChild` beside the running test executable (`swift build --build-tests` builds it).
    private func childExecutable() throws -> URL {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent()
        let child = try #require(directory?.appendingPathComponent("OutboxChild"))
        try #require(FileManager.default.isExecutableFile(atPath: child.path), "build OutboxChild first")
        return child
    }

    @Test("200 requests, 50 SIGKILLs while enqueuing and sending: each applied exactly once, no file left")
    func killedChildren() async throws {
        let started = Date()
        let seed =
            ProcessInfo.processInfo.environment["FORMWORK_OUTBOX_CRASH_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        let scratch = try ScratchDirectory("outbox-crash")
        defer { scratch.remove() }
        let port = try UnusedPort.find()
        var crash = CrashRun(
            seed: seed, child: try childExecutable(), directory: scratch.file("outbox"),
            baseURL: "http://127.0.0.1:\(port)")
        let note = crash.note
        var server: PrivateDemoServer?
        defer { server?.stop() }

        // Phase 1, the server down: kill the child while it enqueues, until one run has all 200.
        try await crash.enqueueWithKills()
        #expect(crash.kills.enqueue >= 1, note)
        #expect(crash.delivered.isEmpty, "nothing can be delivered with the server down; \(note)")

        // Phase 2, a server on that port: kill the child while it sends, then let one finish.
        let running = try await DemoServer.start(port: port)
        server = running
        try #require(running.baseURL == crash.baseURL, note)
        try await crash.sendWithKills()
        #expect(crash.kills.total == Self.enqueueKills + Self.sendingKills + Self.afterApplyKills, note)
        #expect(crash.kills.afterApply == Self.afterApplyKills, note)
        let final = try await crash.run(mode: "send", kill: nil)
        #expect(final.exit == .init(bySignal: false, status: 0), note)
        #expect(final.lines.last == "pending 0", "the final run's last line: \(final.lines); \(note)")
        #expect(!final.lines.contains { $0.hasPrefix("set-aside") }, note)

        // Each request applied once; at least one applied before a kill and sent again with its key.
        var replays = 0
        for index in 0..<Self.requestCount {
            let count = try await crash.serverCount(index)
            #expect(count.applied == 1, "req-\(index): applied \(count.applied) times; \(note)")
            replays += max(0, count.arrivals - count.applied)
        }
        #expect(replays >= 1, "no request was sent again after the server applied it; \(note)")
        for folder in ["tmp", "bodies", "entries", "set-aside"] {
            let left = try FileManager.default.contentsOfDirectory(
                atPath: crash.directory.appendingPathComponent(folder).path)
            #expect(left.isEmpty, "\(folder)/ still holds \(left); \(note)")
        }
        let summary =
            "OutboxCrash: seed \(seed), \(crash.runs) runs, kills while enqueuing \(crash.kills.enqueue), "
            + "while sending \(crash.kills.sending), after the server applied \(crash.kills.afterApply); "
            + "\(replays) requests re-sent after they were applied; left by kills for the next open: "
            + "\(crash.temporaryFilesSeen) temporary files, \(crash.orphanBodiesSeen) body files without "
            + "entry (\(crash.runsLeavingFiles) runs); "
            + "\(Int(Date().timeIntervalSince(started))) s"
        FileHandle.standardError.write(Data((summary + "\n").utf8))
    }
}

/// The state of one crash test: its plan, what the children printed, and the kills that landed.
private struct CrashRun {
    /// Kills that landed (the child ended by SIGKILL), by window.
    struct Kills {
        var enqueue = 0
        var sending = 0
        var afterApply = 0
        var total: Int { enqueue + sending + afterApply }
    }

    /// When to kill a run: `delay` after it is let take its `step`th step (1: the first).
    struct KillPlan {
        var step: Int
        var delayMicroseconds: Int
    }

    /// What one run printed and how it ended.
    struct Outcome {
        var lines: [String]
        var exit: OutboxChildRun.Exit
        /// The number the first `pending N` line gave (what the outbox held when it opened).
        var pendingAtOpen: Int?
    }

    let seed: UInt64
    let child: URL
    let directory: URL
    let baseURL: String
    /// Names this test's counters on the server.
    let runID = String(UUID().uuidString.prefix(8))
    var random: SeededRandom
    var kills = Kills()
    var runs = 0
    /// The tags every run printed as delivered.
    var delivered: Set<String> = []
    /// Files found in `tmp/`, and body files no entry names, after killed runs (the next open
    /// removes them), and the killed runs that left any.
    var temporaryFilesSeen = 0
    var orphanBodiesSeen = 0
    var runsLeavingFiles = 0
    /// What the outbox is known to hold: at least this many requests are enqueued, at most this
    /// many are still pending.
    var enqueued = 0
    var pending = 0

    init(seed: UInt64, child: URL, directory: URL, baseURL: String) {
        self.seed = seed
        self.child = child
        self.directory = directory
        self.baseURL = baseURL
        random = SeededRandom(seed: seed)
    }

    /// The words every failure carries: how to draw the same plan again.
    var note: Comment { "seed \(seed) (FORMWORK_OUTBOX_CRASH_SEED=\(seed) draws the same kills)" }

    /// Phase 1: runs the child in `enqueue` mode and kills it after a random number of `enqueued`
    /// lines plus a random delay, ``OutboxCrashTests/enqueueKills`` times or until a run ends with
    /// every request pending; then, if needed, one run without a kill gets there.
    mutating func enqueueWithKills() async throws {
        while kills.enqueue < OutboxCrashTests.enqueueKills {
            let remaining = OutboxCrashTests.requestCount - enqueued
            let killsLeft = OutboxCrashTests.enqueueKills - kills.enqueue
            // At most an equal share of what remains per kill left, half that on average: the
            // child goes on while the kill is on its way, and the kills must not run out of work.
            let count = random.int(in: 1...max(1, remaining / (killsLeft + 1)))
            let plan = KillPlan(step: count, delayMicroseconds: random.int(in: 0...2_000))
            let outcome = try await run(mode: "enqueue", kill: plan)
            enqueued =
                (outcome.pendingAtOpen ?? 0) + outcome.lines.count(where: { $0.hasPrefix("enqueued ") })
            if outcome.exit.wasKilled {
                kills.enqueue += 1
            } else {
                try #require(outcome.exit == .init(bySignal: false, status: 0), note)
                break
            }
        }
        let last = try await run(mode: "enqueue", kill: nil)
        try #require(last.exit == .init(bySignal: false, status: 0), note)
        try #require(
            last.lines.last == "pending \(OutboxCrashTests.requestCount)",
            "the enqueue phase ends with every request pending: \(last.lines); \(note)")
        pending = OutboxCrashTests.requestCount
    }

    /// Phase 2: ``OutboxCrashTests/sendingKills`` runs (and those phase 1 could not use) killed
    /// at random moments (after a random number of `delivered` lines, or of none, plus a random
    /// delay) and ``OutboxCrashTests/afterApplyKills`` runs that kill themselves after the Nth
    /// response, in a random order.
    mutating func sendWithKills() async throws {
        let unused = OutboxCrashTests.enqueueKills - kills.enqueue
        var windows =
            Array(repeating: false, count: OutboxCrashTests.sendingKills + unused)
            + Array(repeating: true, count: OutboxCrashTests.afterApplyKills)
        windows.shuffle(using: &random)
        for (index, afterApply) in windows.enumerated() where pending > 0 {
            let killsLeft = windows.count - index
            // As in phase 1: half a share of what is pending per kill left, on average.
            let share = max(1, pending / (killsLeft + 1))
            let outcome: Outcome
            if afterApply {
                outcome = try await run(
                    mode: "die-after-\(random.int(in: 1...min(share, pending)))", kill: nil)
            } else {
                // A request takes about a millisecond here: a delay of up to 3 ms lands anywhere
                // in the next one or two (built, on the wire, applied, answered, removed).
                let count = random.int(in: 0...(share - 1))
                let plan = KillPlan(step: count + 1, delayMicroseconds: random.int(in: 0...3_000))
                outcome = try await run(mode: "send", kill: plan)
            }
            pending =
                (outcome.pendingAtOpen ?? pending)
                - outcome.lines.count(where: { $0.hasPrefix("delivered ") })
            if outcome.exit.wasKilled {
                if afterApply { kills.afterApply += 1 } else { kills.sending += 1 }
            } else {
                try #require(outcome.exit == .init(bySignal: false, status: 0), note)
                pending = 0
            }
        }
    }

    /// Runs the child once in `mode`, kills it as `kill` says, and checks what it printed: no
    /// request delivered twice across runs, no final failure, no entry set aside. A run with a
    /// plan is paced: the child waits before each step (an enqueue, an attempt) until this test
    /// lets it take it, so it can never run ahead of the kill however busy the machine is; the
    /// kill comes `delay` after the step the plan names is let go. A run without a plan runs free.
    /// - Returns: What it printed and how it ended.
    mutating func run(mode: String, kill plan: KillPlan?) async throws -> Outcome {
        runs += 1
        let run = try OutboxChildRun(child, arguments: [directory.path, baseURL, runID, mode])
        defer { run.sigkill() }
        if plan == nil { run.runFree() }
        var lines: [String] = []
        var steps = 0
        var killer: Task<Void, Never>?
        for await line in run.lines {
            lines.append(line)
            if let plan, killer == nil, line == "await" {
                steps += 1
                run.step()
                if steps == plan.step {
                    killer = Task {
                        try? await Task.sleep(nanoseconds: UInt64(plan.delayMicroseconds) * 1_000)
                        run.sigkill()
                    }
                }
            }
            if line.hasPrefix("delivered ") {
                let tag = String(line.dropFirst("delivered ".count))
                let isNew = delivered.insert(tag).inserted
                #expect(isNew, "\(tag) delivered twice (run \(runs), \(mode)); \(note)")
            }
            #expect(!line.hasPrefix("failed ") && !line.hasPrefix("set-aside "), "\(line); \(note)")
        }
        await killer?.value
        let exit = await run.exit()
        if exit.wasKilled { try countLeftovers() }
        let pendingAtOpen = lines.first { $0.hasPrefix("pending ") }.flatMap { Int($0.dropFirst(8)) }
        return Outcome(lines: lines, exit: exit, pendingAtOpen: pendingAtOpen)
    }

    /// Counts what a killed run left for the next open to clear: files in `tmp/`, and body files
    /// in `bodies/` that no entry names (a kill between a body's rename and its entry's).
    private mutating func countLeftovers() throws {
        let files = FileManager.default
        let temporary = try files.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)
        let entries = try files.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path)
        let bodies = try files.contentsOfDirectory(atPath: directory.appendingPathComponent("bodies").path)
        let named = Set(entries.compactMap { OutboxStore.parseEntryFileName($0)?.id.uuidString })
        let orphans = bodies.filter { !named.contains($0) }
        temporaryFilesSeen += temporary.count
        orphanBodiesSeen += orphans.count
        if !temporary.isEmpty || !orphans.isEmpty { runsLeavingFiles += 1 }
    }

    /// The server's count for request `index`: how often it applied it, how many times it arrived.
    func serverCount(_ index: Int) async throws -> (applied: Int, arrivals: Int) {
        let url = "\(baseURL)/idempotency/count?counter=crash-\(runID)-\(index)"
        let json = try await Session().request(PlainGet(url: url)).data()
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any], note)
        let applied = try #require(object["applied"] as? Int, note)
        let arrivals = try #require(object["arrivals"] as? Int, note)
        return (applied, arrivals)
    }
}

/// SplitMix64: a small seeded generator, so that a failing plan of kills can be drawn again.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `range`, uniformly.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }
}
