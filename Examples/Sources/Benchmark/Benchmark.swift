import ExampleSupport
import Foundation

/// Runs the same work through raw `URLSession` and through Formwork, in one process against a
/// demo server it starts itself, and prints each pair with its ratio and target:
///
/// 1. small GET + JSON decode, sequential; 2. the same with 64 in flight; 3. a large download
/// (bare `download(for:)`, a `downloadTask` with progress, Formwork with progress); 4. a large
/// multipart upload from a file; 5. a resume after a cut at 50 %; then coalescing, cached hits and
/// both transports beside bare URLSession and AsyncHTTPClient (``Transports``). With
/// `--only features`, what each feature adds to a small request (``FeatureCosts``).
///
///     swift build -c release --package-path Examples --product Benchmark
///     Examples/.build/release/Benchmark [--quick] [--size BYTES] [--requests N] [--only PHASE]
///
/// Speed ratios never fail the run (they are noisy on shared machines); the exit code is 1 only
/// for correctness failures, 2 for a bad command line.
///
/// `main` is synchronous: the work runs in a detached task while the main thread waits on a
/// semaphore (in the features phase, whose hooks need the main actor, it runs the main run loop
/// instead). An async `main` (which parks the main thread in `dispatchMain`) crashes valgrind
/// 3.19, which the benchmark's profiling runs need:
///
///     DemoServer --port 8080 &   # valgrind cannot start it; and strip -g the binary for valgrind 3.19
///     valgrind --tool=callgrind ./Benchmark.nodebug --only small --requests 200 --server http://127.0.0.1:8080
@main
struct Benchmark {
    static func main() {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            let message = "\(error)"
            if !message.isEmpty { print("Benchmark: \(message)") }
            print(Options.usage)
            exit(message.isEmpty ? 0 : 2)
        }
        if options.phases.contains(.features) {
            // The features phase's hooks run on the main actor, whose jobs go to the main queue:
            // the main thread serves it in its run loop (which valgrind runs, unlike
            // `dispatchMain`) until the work is done and exits there.
            Task.detached {
                let count = await run(options)
                DispatchQueue.main.async { exit(count == 0 ? 0 : 1) }
            }
            while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
        }
        let done = DispatchSemaphore(value: 0)
        let failures = Locked(0)
        Task.detached {
            let count = await run(options)
            failures.withLock { $0 = count }
            done.signal()
        }
        done.wait()
        exit(failures.withLock { $0 } == 0 ? 0 : 1)
    }

    /// Runs `options.phases` against `base`.
    static func runPhases(_ options: Options, base: String, directory: URL, report: Report) async {
        for phase in options.phases {
            switch phase {
            case .small:
                await SmallRequests(base: base, options: options).run(report: report)
            case .download:
                await Downloads(base: base, options: options, directory: directory).run(report: report)
            case .upload:
                await Uploads(base: base, options: options, directory: directory).run(report: report)
            case .resume:
                await Resume(base: base, options: options, directory: directory).run(report: report)
            case .coalescing:
                await Coalescing(base: base, options: options).run(report: report)
            case .cache:
                await CacheHits(base: base, options: options).run(report: report)
            case .transports:
                await Transports(base: base, options: options, directory: directory).run(report: report)
            case .outbox:
                await OutboxEnqueue(options: options, directory: directory).run(report: report)
            case .features:
                await FeatureCosts(base: base, options: options).run(report: report)
            }
        }
    }

    /// Runs the chosen phases and returns the number of correctness failures.
    static func run(_ options: Options) async -> Int {
        let report = Report()
        var server: DemoServerProcess?
        if options.server == nil {
            do {
                server = try DemoServerProcess()
            } catch {
                print("Benchmark: cannot start the demo server: \(error)")
                print("Build it first: swift build -c release --package-path Examples --product Benchmark")
                return 1
            }
        }
        guard let base = options.server ?? server?.baseURL else { return 1 }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-benchmark-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            print("Benchmark: cannot create \(directory.path): \(error)")
            return 1
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        report.header(server: base, options: options)
        if PeakMemory.mark().method == .processPeak {
            report.note("note: /proc/self/clear_refs is not writable here: peak RSS growth is measured")
            report.note("against the process's earlier peak and may under-report.")
        }
        let started = Stopwatch()
        if !options.linkOnly {
            await runPhases(options, base: base, directory: directory, report: report)
        }
        if let link = options.link {
            do {
                let proxy = try LinkProxyProcess(target: base, link: link)
                report.section("Over a simulated link: \(link), through a LinkProxy at \(proxy.baseURL)")
                await runPhases(
                    options.overLink(link), base: proxy.baseURL, directory: directory, report: report)
                withExtendedLifetime(proxy) {}
            } catch {
                report.fail("cannot start the link proxy: \(error)")
            }
        }
        report.summary()
        print(String(format: "Total time %.1f s", started.seconds))
        withExtendedLifetime(server) {}  // the server stops when this process no longer holds it
        return report.failed.count
    }
}
