import ExampleSupport
import Foundation

/// Runs the same work through raw `URLSession` and through Formwork, in one process against a
/// demo server it starts itself, and prints each pair with its ratio and target:
///
/// 1. small GET + JSON decode, sequential; 2. the same with 64 in flight; 3. a large download
/// (bare `download(for:)`, a `downloadTask` with progress, Formwork with progress); 4. a large
/// multipart upload from a file; 5. a resume after a cut at 50 %.
///
///     swift build -c release --package-path Examples --product Benchmark
///     Examples/.build/release/Benchmark [--quick] [--size BYTES] [--requests N] [--only PHASE]
///
/// Speed ratios never fail the run (they are noisy on shared machines); the exit code is 1 only
/// for correctness failures, 2 for a bad command line.
@main
struct Benchmark {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            let message = "\(error)"
            if !message.isEmpty { print("Benchmark: \(message)") }
            print(Options.usage)
            exit(message.isEmpty ? 0 : 2)
        }
        let failures = await run(options)
        exit(failures == 0 ? 0 : 1)
    }

    /// Runs the chosen phases and returns the number of correctness failures.
    nonisolated static func run(_ options: Options) async -> Int {
        let report = Report()
        let server: DemoServerProcess
        do {
            server = try DemoServerProcess()
        } catch {
            print("Benchmark: cannot start the demo server: \(error)")
            print("Build it first: swift build -c release --package-path Examples --product DemoServer")
            return 1
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-benchmark-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            print("Benchmark: cannot create \(directory.path): \(error)")
            return 1
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        report.header(server: server.baseURL, options: options)
        if PeakMemory.mark().method == .processPeak {
            report.note("note: /proc/self/clear_refs is not writable here: peak RSS growth is measured")
            report.note("against the process's earlier peak and may under-report.")
        }
        let started = Stopwatch()
        let base = server.baseURL
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
            }
        }
        report.summary()
        print(String(format: "Total time %.1f s", started.seconds))
        return report.failed.count
    }
}
