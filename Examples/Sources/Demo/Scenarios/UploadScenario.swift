import ExampleSupport
import Formwork
import Foundation

/// Scenario 5: a multipart upload of a file (a title and a video), with a progress bar for the
/// bytes sent, checked against what the server says it received.
@MainActor
final class UploadScenario: Scenario, Requestable {
    let title = "A multipart upload of a file"
    let summary = "A progress bar for the bytes sent; the server reports each part's size and MD5."
    let size: Int64

    /// - Parameter size: The file's size (`--upload-size`).
    init(size: Int64) {
        self.size = size
    }

    var timeLimit: Duration { .seconds(120 + Int(size >> 22)) }

    func run(on stage: Stage) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "formwork-demo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let video = directory.appendingPathComponent("holiday.mp4")
        let size = self.size
        stage.say("Writing a \(formatBytes(size)) video to upload…")
        let md5 = try await offMain { try FileContent.write(size: size, version: 7, to: video) }

        let bar = Headless.ProgressView()
        let widget = ProgressWidget("Upload", progressView: bar)
        stage.board.show(widget)
        await stage.pause(1)
        let tag = "upload-\(UUID().uuidString.prefix(8))"
        stage.code("upload(VideoUploadForm(title: \"…\", video: holiday.mp4)).progress(progressBar)")
        let response = await upload(VideoUploadForm(url: "\(stage.base)/upload?tag=\(tag)", file: video))
            .progress(bar)
            .finished()
        widget.status = response.error.map { "✗ \($0.userMessage)" } ?? "✓ sent"
        guard let data = response.data, response.error == nil else {
            throw DemoFailure("the upload failed: \(response.error?.userMessage ?? "no body")")
        }
        let receipt = try JSONDecoder().decode(UploadReceipt.self, from: data)
        try stage.check(
            bar.fractionCompleted == 1 && bar.latestProgress?.completedBytes == receipt.bytes,
            "the bar reached 100 %: \(formatBytes(receipt.bytes)) sent (the file plus the multipart framing)")
        let parts = receipt.parts ?? []
        try stage.check(
            parts.map(\.name) == ["title", "video"], "the server received 2 parts: title and video")
        let part = parts.last
        try stage.check(
            part?.fileName == "holiday.mp4" && part?.contentType == "video/mp4",
            "the video part is holiday.mp4, video/mp4 (from the file's extension)")
        try stage.check(
            part?.bytes == size && part?.md5 == md5,
            "the video part has \(part?.bytes ?? 0) bytes and MD5 \(part?.md5 ?? "none"), as the file")
        await stage.pause(1)
    }
}
