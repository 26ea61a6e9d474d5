import ExampleSupport
import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download of `/static/{size}` (``Files/downloadPath(size:)``) cut at 50 % by the server
/// (`cutAt`), then completed. Raw URLSession cannot resume
/// on Linux (`downloadTask(withResumeData:)` crashes there, so it is never called): the raw side
/// downloads again from zero. Formwork resumes from its `ResumeData` with `Range`/`If-Range`.
/// The server's own counters (`/stats?tag=T`, body bytes it sent) say what each side transferred.
///
/// The server cuts each response after `cutAt` bytes, so both sides fetch the file in one
/// request here: Formwork uses a session without download segments (by default it fetches 8 MiB
/// ranges, none of which would reach the cut).
struct Resume: Requestable {
    /// The interrupted download.
    struct CutForm: DownloadFormable {
        let url: String
        let destination: URL
    }

    /// The resumed download: the same file, without the cut.
    struct ResumeForm: DownloadResumeFormable {
        let resumeData: ResumeData
        let url: String
        let destination: URL
    }

    /// `/stats?tag=T`.
    struct Stats: Decodable, Sendable {
        /// One tag's counters.
        struct Tag: Decodable, Sendable {
            let requests: Int
            let bytesSent: Int64
        }
        let tag: Tag
    }

    let base: String
    let options: Options
    let directory: URL

    func run(report: Report) async {
        let size = options.size
        let half = size / 2
        report.section("5. Resume a \(formatBytes(size)) download cut at 50 % (body bytes the server sent)")
        let raw = URLSession(configuration: .default)
        defer { raw.finishTasksAndInvalidate() }
        let session = Session { $0.downloadSegmentSize = nil }
        let run = UUID().uuidString.prefix(8)
        let (rawTag, formworkTag) = ("bench-raw-\(run)", "bench-formwork-\(run)")
        do {
            try await Files.prepareDownload(base: base, size: size)
            let rawClock = Stopwatch()
            try await rawRestart(raw, tag: rawTag)
            let rawTime = rawClock.seconds
            let formworkClock = Stopwatch()
            let resumeOffset = try await formworkResume(session, tag: formworkTag)
            let formworkTime = formworkClock.seconds
            let rawStats = try await stats(rawTag)
            let formworkStats = try await stats(formworkTag)
            report.note(
                pad("raw: restart from zero", 38) + pad(seconds(rawTime), 10, left: true)
                    + "   \(rawStats.requests) requests, \(rawStats.bytesSent) body bytes")
            report.note(
                pad("Formwork: resume at byte \(resumeOffset)", 38)
                    + pad(seconds(formworkTime), 10, left: true)
                    + "   \(formworkStats.requests) requests, \(formworkStats.bytesSent) body bytes")
            report.pair(
                "bytes sent", raw: Double(rawStats.bytesSent), formwork: Double(formworkStats.bytesSent),
                higherIsBetter: false, target: 1.0)
            report.ratio("time (no target; 1 = parity)", rawTime / formworkTime, target: 1.0)
            report.check(
                rawStats.bytesSent == half + size, "raw sent \(rawStats.bytesSent), expected \(half + size)")
            let onlyMissing = resumeOffset == half && formworkStats.bytesSent == size
            print(
                "   " + pad("Formwork fetched only the missing \(size - half) bytes", 56)
                    + (onlyMissing ? "PASS" : "FAIL"))
            report.check(
                onlyMissing,
                "Formwork resumed at \(resumeOffset) and the server sent \(formworkStats.bytesSent) bytes "
                    + "in all; expected \(half) and \(size)")
        } catch {
            report.fail("resume: \(error)")
        }
    }

    /// The raw side: the cut download fails, the second one starts from zero.
    private func rawRestart(_ raw: URLSession, tag: String) async throws {
        let temporaryFiles = Files.downloadTempFiles()
        defer { Files.removeDownloadTempFiles(except: temporaryFiles) }
        let size = options.size
        let cut = try url(Files.downloadPath(size: size) + "?cutAt=\(size / 2)&tag=\(tag)")
        let cutSucceeded: Bool
        do {
            let (file, _) = try await raw.download(for: URLRequest(url: cut))
            try? FileManager.default.removeItem(at: file)
            cutSucceeded = true
        } catch {
            cutSucceeded = false  // expected: the body was cut short
        }
        guard !cutSucceeded else { throw BenchmarkFailure("raw: the cut download succeeded") }
        let (file, response) = try await raw.download(
            for: URLRequest(url: try url(Files.downloadPath(size: size) + "?tag=\(tag)")))
        defer { try? FileManager.default.removeItem(at: file) }
        try Downloads.checkStatus(response)
        try checkFile(file, side: "raw")
    }

    /// The Formwork side: the cut download fails with resume data, the resume fetches the rest.
    /// Returns the offset the resume started from.
    private func formworkResume(_ session: Session, tag: String) async throws -> Int64 {
        let size = options.size
        let destination = Files.scratch("resume", in: directory)
        defer { try? FileManager.default.removeItem(at: destination) }
        let path = base + Files.downloadPath(size: size)
        let cut = CutForm(url: "\(path)?cutAt=\(size / 2)&tag=\(tag)", destination: destination)
        let failed = await download(cut, session: session).response()
        guard failed.error != nil, let resumeData = failed.resumeData else {
            throw BenchmarkFailure("Formwork: the cut download gave no resume data (\(failed.result))")
        }
        defer { try? FileManager.default.removeItem(at: resumeData.partialFileURL) }
        let form = ResumeForm(
            resumeData: resumeData, url: "\(path)?tag=\(tag)", destination: destination)
        let file = try await download(form, session: session).fileURL()
        try checkFile(file, side: "Formwork")
        return resumeData.bytesReceived
    }

    private func checkFile(_ file: URL, side: String) throws {
        let received = Files.size(of: file)
        guard received == options.size else {
            throw BenchmarkFailure("\(side): \(received) bytes on disk, expected \(options.size)")
        }
        guard try Files.matchesServerContent(file, size: options.size) else {
            throw BenchmarkFailure("\(side): the content differs from the server's file")
        }
    }

    private func url(_ path: String) throws -> URL {
        guard let url = URL(string: base + path) else { throw BenchmarkFailure("bad URL \(path)") }
        return url
    }

    private func stats(_ tag: String) async throws -> Stats.Tag {
        let (data, _) = try await URLSession.shared.data(for: URLRequest(url: try url("/stats?tag=\(tag)")))
        return try JSONDecoder().decode(Stats.self, from: data).tag
    }
}
