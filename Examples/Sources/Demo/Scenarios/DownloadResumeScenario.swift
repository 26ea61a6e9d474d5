import ExampleSupport
import Formwork
import Foundation

/// Scenario 4, MBNetwork's progress and resume ("断点续传"): a large download that the server cuts
/// part-way, then resumed from its resume data — only the missing bytes travel, and the file ends
/// up byte-identical to the server's.
@MainActor
final class DownloadResumeScenario: Scenario, Requestable {
    let title = "A large download, cut by the server part-way, then resumed"
    let summary = "A progress bar with bytes, percent and rate; the resume fetches only the missing bytes."
    let size: Int64

    /// - Parameter size: The file's size (`--size`).
    init(size: Int64) {
        self.size = size
    }

    var timeLimit: Duration { .seconds(120 + Int(size >> 22)) }

    func run(on stage: Stage) async throws {
        let cut = size / 8 * 3
        let id = UUID().uuidString.prefix(8)
        let fileURL = "\(stage.base)/files/\(size)"
        // Paced, the server sends the file in about 6 s; with --auto, as fast as it can.
        let rate = stage.isPaced ? "&rate=\(max(size / 6, 1 << 20))" : ""
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "formwork-demo-\(id).bin")
        defer { try? FileManager.default.removeItem(at: destination) }

        // One request for the whole file, so that the server's cut lands part-way through it
        // (the default session fetches 8 MiB ranges, each of which the server would cut).
        let oneRequest = Session { $0.downloadSegmentSize = nil }
        let firstBar = Headless.ProgressView()
        let first = ProgressWidget("Download", progressView: firstBar)
        stage.board.show(first)
        stage.say(
            "The server will drop the connection after \(formatBytes(cut)) of \(formatBytes(size)) (cutAt).")
        await stage.pause(1)

        stage.code("download(FileForm(url: \"/files/\(size)?cutAt=\(cut)\")).progress(progressBar)")
        let cutForm = FileDownloadForm(
            url: "\(fileURL)?cutAt=\(cut)&tag=cut-\(id)\(rate)", destination: destination)
        let cutResponse = await download(cutForm, session: oneRequest).progress(firstBar).finished()
        let error = cutResponse.error
        first.status = error.map {
            "✗ cut after \(formatBytes(cutResponse.resumeData?.bytesReceived ?? 0)): \($0.userMessage)"
        }
        try stage.check(
            error?.isNetworkFailure == true,
            "the download failed with a network error: \(error?.userMessage ?? "none")")
        guard let resumeData = cutResponse.resumeData else {
            throw DemoFailure("no resume data after the cut")
        }
        let onDisk =
            try FileManager.default.attributesOfItem(atPath: resumeData.partialFileURL.path)[.size]
            as? NSNumber
        try stage.check(
            resumeData.bytesReceived == cut && onDisk?.int64Value == cut,
            "resume data: \(formatBytes(resumeData.bytesReceived)) kept on disk, \(resumeData.isResumable ? "resumable" : "not resumable (no validator)")"
        )
        await stage.pause(1.5)

        let secondBar = Headless.ProgressView()
        let second = ProgressWidget("Resume", progressView: secondBar)
        stage.board.show(second)
        stage.code(
            "download(ResumeForm(resumeData: resumeData)).progress(progressBar)",
            "    // sends Range: bytes=\(cut)- and If-Range with the file's validator"
        )
        let resumeForm = ResumeDownloadForm(
            resumeData: resumeData, url: "\(fileURL)?tag=resume-\(id)\(rate)", destination: destination)
        let resumed = await download(resumeForm).progress(secondBar).finished()
        second.status = resumed.error.map { "✗ \($0.userMessage)" } ?? "✓ done"
        try stage.check(resumed.error == nil, "the resumed download finished")
        let firstShown = second.startBytes ?? 0
        try stage.check(
            firstShown >= cut,
            "the resumed bar never went below the \(formatBytes(cut)) kept (first update: \(formatBytes(firstShown)))"
        )

        let statsForm = PathForm(base: stage.base, path: "/stats", parameters: ["tag": "resume-\(id)"])
        let stats = try await request(statsForm).decode(TagStats.self, atKeyPath: "tag")
        try stage.check(
            stats.bytesSent == size - cut,
            "the server sent \(formatBytes(stats.bytesSent)) for the resume: only the missing bytes")

        stage.say("Checking the file against the server's content (MD5)…")
        let size = self.size
        let (actual, expected) = try await offMain {
            (try FileContent.md5(ofFile: destination), FileContent.md5(size: size))
        }
        try stage.check(
            actual.size == size && actual.md5 == expected,
            "the file has \(actual.size) bytes and MD5 \(actual.md5), as the server's")
        try stage.check(
            !FileManager.default.fileExists(atPath: resumeData.partialFileURL.path),
            "no partial file is left behind")
        await stage.pause(1)
    }
}
