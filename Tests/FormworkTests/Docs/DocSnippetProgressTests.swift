import Formwork
import Foundation
import Testing

// Progress.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Progress")
    struct ProgressTests {
        @MainActor
        final class ReportScreen: Requestable {
            let bar = Headless.ProgressView()
            var session = Session.default  // added for the test

            func save(to destination: URL) async throws(NetworkError) -> URL {
                try await download(ReportForm(destination: destination), session: session)
                    .progress(bar)
                    .fileURL()
            }
        }

        @MainActor
        final class PercentLabel: Progressable {
            private(set) var text = ""

            func progress(_ progress: TransferProgress) {
                if let fraction = progress.fractionCompleted {
                    text = "\(Int(fraction * 100)) %"
                } else {
                    text = "\(progress.completedBytes / 1024) KiB"
                }
            }
        }

        struct Mirror: Requestable {
            var session = Session.default  // added for the test
            var log: @Sendable (String) -> Void = { print($0) }  // added for the test

            func fetch(_ form: ReportForm) async throws(NetworkError) -> URL {
                let transfer = download(form, session: session)
                Task {
                    for await progress in transfer.progressUpdates {
                        log("report: \(progress)")  // "1048576/4194304 bytes (25%)"
                    }
                }
                return try await transfer.fileURL()
            }
        }

        @Test("Progress: a bar, a label and an async sequence see the whole download")
        @MainActor
        func progress() async throws {
            let body = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0) })
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/reports/2026.pdf", StubResponse(body: body, chunkSize: 65_536))
            let session = Session(stubs: stubs)
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }

            let screen = ReportScreen()
            screen.session = session
            let file = try await screen.save(to: folder.appendingPathComponent("a.pdf"))
            #expect(try Data(contentsOf: file) == body)

            let label = PercentLabel()
            let request = Caller().download(
                ReportForm(destination: folder.appendingPathComponent("b.pdf")), session: session
            )
            .progress(label)
            await withCheckedContinuation { continuation in
                request.response { _ in continuation.resume() }
            }
            #expect(label.text == "100 %")
            #expect(TransferProgress(completedBytes: 2_048, totalBytes: nil).fractionCompleted == nil)

            let lines = Lines()
            let mirror = Mirror(session: session, log: { lines.append($0) })
            let mirrored = try await mirror.fetch(
                ReportForm(destination: folder.appendingPathComponent("c.pdf")))
            #expect(try Data(contentsOf: mirrored) == body)
            for _ in 0..<100 where !lines.all.contains("report: 600000/600000 bytes (100%)") {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(lines.all.last == "report: 600000/600000 bytes (100%)")
        }
    }
}
