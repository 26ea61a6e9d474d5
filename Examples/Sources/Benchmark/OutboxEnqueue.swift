import Formwork
import Foundation

/// The outbox's enqueue cost: a small JSON `POST` made durable — on disk when
/// `enqueue` returns — one after another. The raw side writes the same number of bytes the way
/// any durable write must: a temporary file, `fsync`, `rename`, `fsync` of the directory (two
/// `fsync`s, as the outbox's entry without a file body). Reports microseconds per request on
/// each side; the ratio is the price of the outbox's own work (encoding, checksum, bookkeeping).
///
/// The requests go to a port where nothing listens, with a backoff of an hour: the lane's first
/// attempt is refused once and then waits, so sending costs nothing while enqueue is timed.
struct OutboxEnqueue {
    /// The request: a small comment.
    struct Form: RequestFormable {
        let url: String
        let text: String
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["text": text, "post": 17] }
        var encoding: ParameterEncoding { .json }
    }

    let options: Options
    let directory: URL

    func run(report: Report) async {
        let count = min(options.requests, 500)
        report.section(
            "9. Outbox enqueue: a small JSON POST made durable (on disk when enqueue returns), \(count) one "
                + "after another (\(options.rounds) rounds per side, median round); raw: the same bytes to a "
                + "temporary file, fsync, rename, fsync of the directory")
        do {
            var rawSamples: [Double] = []
            var formworkSamples: [Double] = []
            for round in 0..<options.rounds {
                let place = directory.appendingPathComponent("outbox-\(round)")
                formworkSamples.append(try await enqueue(count, in: place.appendingPathComponent("formwork")))
                rawSamples.append(try durableWrites(count, in: place.appendingPathComponent("raw")))
                try? FileManager.default.removeItem(at: place)
            }
            report.pair(
                "µs per request", raw: rawSamples.median * 1e6, formwork: formworkSamples.median * 1e6,
                higherIsBetter: false, target: 0.5)
            report.note(
                "fsyncs per request: Formwork 2 (the entry file and its directory; 4 with a file body: the body and "
                    + "bodies/ too), raw 2; the outbox's count is pinned by OutboxStoreTests")
            report.note("filesystem of \(directory.path): fsync's cost depends on it (tmpfs makes it free)")
        } catch {
            report.fail("outbox enqueue: \(error)")
        }
    }

    /// Seconds per enqueue into a new outbox.
    private func enqueue(_ count: Int, in place: URL) async throws -> Double {
        let outbox = try Outbox(
            directory: place, session: Session(),
            options: Outbox.Options(
                maximumCount: count + 1, backoff: RetryPolicy(baseDelay: 3_600, maximumDelay: 3_600)))
        let text = String(repeating: "a comment of a hundred bytes or so, ", count: 3)
        let watch = Stopwatch()
        for index in 0..<count {
            try await outbox.enqueue(Form(url: "http://127.0.0.1:9/comments", text: "\(index) \(text)"))
        }
        let seconds = watch.seconds / Double(count)
        let pending = await outbox.pending().count
        await outbox.close()
        guard pending == count else { throw BenchmarkFailure("\(pending) of \(count) requests pending") }
        return seconds
    }

    /// Seconds per durable write of an entry-sized file.
    private func durableWrites(_ count: Int, in place: URL) throws -> Double {
        let entries = place.appendingPathComponent("entries")
        try FileManager.default.createDirectory(at: entries, withIntermediateDirectories: true)
        let bytes = [UInt8](repeating: 0x61, count: 700)
        let directoryDescriptor = open(entries.path, O_RDONLY)
        guard directoryDescriptor >= 0 else { throw BenchmarkFailure("cannot open \(entries.path)") }
        defer { close(directoryDescriptor) }
        let watch = Stopwatch()
        for index in 0..<count {
            let temporary = place.appendingPathComponent("tmp-\(index)").path
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard descriptor >= 0, write(descriptor, bytes, bytes.count) == bytes.count,
                fsync(descriptor) == 0
            else {
                throw BenchmarkFailure("cannot write \(temporary)")
            }
            close(descriptor)
            guard rename(temporary, entries.appendingPathComponent("\(index).entry").path) == 0,
                fsync(directoryDescriptor) == 0
            else { throw BenchmarkFailure("cannot rename \(temporary)") }
        }
        return watch.seconds / Double(count)
    }
}
