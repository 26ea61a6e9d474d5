import ExampleSupport
import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One large download three ways: raw `download(for:)` (no progress), a raw `downloadTask` whose
/// delegate receives `didWriteData` progress, and Formwork's streamed download with a progress
/// observer (`progressUpdates`) attached. Reports time, MiB/s and peak RSS growth; checks every
/// file's size and content (outside the timing) and removes it.
struct Downloads {
    /// The three ways to download.
    enum Variant: CaseIterable {
        case rawBare
        case rawProgress
        case formwork

        var label: String {
            switch self {
            case .rawBare: "raw download(for:)"
            case .rawProgress: "raw downloadTask + didWriteData"
            case .formwork: "Formwork download + progressUpdates"
            }
        }
    }

    /// One download's measurements.
    struct Sample {
        let seconds: Double
        let growth: Int64
    }

    /// A download form for `/static/{size}` (``Files/downloadPath(size:)``).
    struct FileForm: DownloadFormable {
        let url: String
        let destination: URL
    }

    let base: String
    let options: Options
    let directory: URL

    func run(report: Report) async {
        let size = options.size
        report.section(
            "3. Download \(formatBytes(size))\(options.network) (\(options.transferRounds) interleaved rounds, median time, "
                + "worst peak RSS growth)")
        let bare = URLSession(configuration: .default)
        let delegate = ProgressDownloadDelegate()
        let progress = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        let session = Session()
        defer {
            bare.finishTasksAndInvalidate()
            progress.finishTasksAndInvalidate()
        }
        do {
            try await Files.prepareDownload(base: base, size: size)
        } catch {
            report.fail("download: \(error)")
            return
        }
        var samples: [Variant: [Sample]] = [:]
        let variants = Variant.allCases
        for round in 0..<options.transferRounds {
            for step in 0..<variants.count {
                let variant = variants[(step + round) % variants.count]
                do {
                    let sample = try await download(
                        variant, size: size, bare: bare, progress: (progress, delegate), session: session)
                    samples[variant, default: []].append(sample)
                } catch {
                    report.fail("\(variant.label), round \(round + 1): \(error)")
                }
            }
        }
        guard variants.allSatisfy({ samples[$0]?.isEmpty == false }) else { return }
        let time = { (variant: Variant) in samples[variant, default: []].map(\.seconds).median }
        let growth = { (variant: Variant) in samples[variant, default: []].map(\.growth).max() ?? 0 }
        for variant in variants {
            report.note(
                pad(variant.label, 38) + pad(seconds(time(variant)), 10, left: true)
                    + pad(
                        String(format: "%.1f MiB/s", mebibytesPerSecond(size, time(variant))), 15, left: true)
                    + "   peak RSS +\(formatBytes(growth(variant)))")
        }
        if let link = options.activeLink {
            // The target over a link: 0.97 × raw, whichever raw.
            report.ratio(
                "Formwork vs raw downloadTask with progress", time(.rawProgress) / time(.formwork),
                target: 0.97)
            report.ratio(
                "Formwork vs bare raw download(for:)", time(.rawBare) / time(.formwork), target: 0.97)
            // Formwork fetches a download in one request, as raw does: the model predicts both.
            let single = link.predictedSeconds(bytes: size)
            report.note(
                "link model: one request \(seconds(single)) (S/B + RTT); Formwork at "
                    + String(format: "%.2f", single / time(.formwork)) + " × the model, raw at "
                    + String(format: "%.2f", single / time(.rawBare)))
        } else {
            // The targets on loopback: 1.0 × a progress-reporting downloadTask, 0.95 × bare.
            report.ratio(
                "Formwork vs raw downloadTask with progress", time(.rawProgress) / time(.formwork),
                target: 1.0)
            report.ratio(
                "Formwork vs bare raw download(for:)", time(.rawBare) / time(.formwork), target: 0.95)
        }
        report.limit("Formwork peak RSS growth", value: growth(.formwork), below: 64 << 20)
    }

    private func download(
        _ variant: Variant, size: Int64, bare: URLSession,
        progress: (URLSession, ProgressDownloadDelegate), session: Session
    ) async throws -> Sample {
        let url = base + Files.downloadPath(size: size)
        let destination = Files.scratch("download", in: directory)
        defer { try? FileManager.default.removeItem(at: destination) }
        let temporaryFiles = Files.downloadTempFiles()
        defer { Files.removeDownloadTempFiles(except: temporaryFiles) }
        guard let requestURL = URL(string: url) else { throw BenchmarkFailure("bad URL \(url)") }
        let mark = PeakMemory.mark()
        let clock = Stopwatch()
        var reported: Int64 = -1
        switch variant {
        case .rawBare:
            let (file, response) = try await bare.download(for: URLRequest(url: requestURL))
            try FileManager.default.moveItem(at: file, to: destination)
            try Self.checkStatus(response)
        case .rawProgress:
            let (response, written) = try await progress.1.download(
                URLRequest(url: requestURL), in: progress.0, to: destination)
            try Self.checkStatus(response)
            reported = written
        case .formwork:
            let request = session.download(FileForm(url: url, destination: destination))
            let observer = Task {
                var last: Int64 = -1
                for await value in request.progressUpdates { last = value.completedBytes }
                return last
            }
            _ = try await request.fileURL()
            reported = await observer.value
        }
        let sample = Sample(seconds: clock.seconds, growth: PeakMemory.growth(since: mark))
        let received = Files.size(of: destination)
        guard received == size else {
            throw BenchmarkFailure("\(variant.label): \(received) bytes on disk, expected \(size)")
        }
        if variant != .rawBare, reported != size {
            throw BenchmarkFailure("\(variant.label): progress ended at \(reported) of \(size) bytes")
        }
        guard try Files.matchesServerContent(destination, size: size) else {
            throw BenchmarkFailure("\(variant.label): the content differs from the server's file")
        }
        return sample
    }

    static func checkStatus(_ response: URLResponse?) throws {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw BenchmarkFailure("status \(status)") }
    }
}

/// The delegate of the raw progress-reporting download: counts `didWriteData` bytes, moves the
/// finished file into place and resumes the waiting caller. One download at a time.
final class ProgressDownloadDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<(URLResponse?, Int64), any Error>
        let destination: URL
        var written: Int64 = 0
        var moveError: (any Error)?
    }

    private let pending = Locked<Pending?>(nil)

    /// Downloads `request` with a `downloadTask` of `session` (whose delegate is this object) into
    /// `destination`; returns the response and the bytes reported through `didWriteData`.
    func download(_ request: URLRequest, in session: URLSession, to destination: URL) async throws
        -> (URLResponse?, Int64)
    {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = Pending(continuation: continuation, destination: destination) }
            session.downloadTask(with: request).resume()
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        pending.withLock { $0?.written = totalBytesWritten }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
    ) {
        pending.withLock { pending in
            guard let destination = pending?.destination else { return }
            do {
                try FileManager.default.moveItem(at: location, to: destination)
            } catch {
                pending?.moveError = error
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let finished else { return }
        if let error = error ?? finished.moveError {
            finished.continuation.resume(throwing: error)
        } else {
            finished.continuation.resume(returning: (task.response, finished.written))
        }
    }
}
