import Formwork
import Foundation
import Testing

// Transfers.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Transfers")
    struct TransfersTests {
        struct Reports: Requestable {
            var session = Session.default  // added for the test

            func fetch(into folder: URL) async throws(NetworkError) -> URL {
                try await download(
                    ReportForm(destination: folder.appendingPathComponent("2026.pdf")), session: session
                )
                .fileURL()
            }
        }

        struct AvatarForm: DownloadFormable {
            var destination: URL
            var url: String { "https://api.example.com/me/avatar.png" }
            var destinationOptions: DownloadDestinationOptions {
                [.removePreviousFile, .createIntermediateDirectories]
            }
        }

        struct ResumeReportForm: DownloadResumeFormable {
            let resumeData: ResumeData
            var destination: URL
        }

        struct ReportDownloader: Requestable {
            let saved: URL  // where the resume data is kept between launches
            var session = Session.default  // added for the test

            func start(into destination: URL) async throws -> URL {
                let response = await download(ReportForm(destination: destination), session: session)
                    .response()
                if let resumeData = response.resumeData {
                    try resumeData.encoded().write(to: saved)  // fetch the rest later
                }
                return try response.result.get()
            }

            func resume(into destination: URL) async throws -> URL {
                let resumeData = try ResumeData(encoded: Data(contentsOf: saved))
                return try await download(
                    ResumeReportForm(resumeData: resumeData, destination: destination), session: session
                )
                .fileURL()
            }
        }

        struct LogUpload: UploadFileFormable {
            let fileURL: URL
            var url: String { "https://api.example.com/logs" }
            var headers: HTTPHeaders { [.contentType("text/plain")] }  // else guessed from the extension
        }

        struct BackupUpload: UploadStreamFormable {
            let archive: URL
            var url: String { "https://api.example.com/backup" }
            func makeStream() throws -> InputStream {
                guard let stream = InputStream(url: archive) else { throw CocoaError(.fileReadNoSuchFile) }
                return stream
            }
        }

        struct Receipt: Decodable, Sendable {
            let id: String
        }

        struct Uploader: Requestable {
            var session = Session.default  // added for the test

            func uploadLog(_ log: URL) async throws(NetworkError) -> Receipt {
                try await upload(LogUpload(fileURL: log), session: session).decode(
                    Receipt.self, atKeyPath: "data")
            }
        }

        struct VideoUpload: UploadMultipartFormable {
            let video: URL
            let title: String
            var url: String { "https://api.example.com/videos" }
            var multipartFormData: MultipartFormData {
                var form = MultipartFormData()
                form.append(Data(title.utf8), name: "title")
                form.append(video, name: "video")  // video/mp4 from ".mp4"
                return form
            }
        }

        @Test("Transfers: downloads, resume data, a resume the server answers in full, and uploads")
        func transfers() async throws {
            let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/reports/2026.pdf", StubResponse(body: body))
            stubs.stub(.post, "https://api.example.com/logs", .json(#"{"data": {"id": "log-1"}}"#))
            stubs.stub(.post, "https://api.example.com/backup", .json("{}"))
            stubs.stub(.post, "https://api.example.com/videos", .json("{}"))
            let session = Session(stubs: stubs)
            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }

            let file = try await Reports(session: session).fetch(into: folder)
            #expect(file.lastPathComponent == "2026.pdf")
            #expect(try Data(contentsOf: file) == body)

            // The default never replaces a file; AvatarForm's options create folders and replace.
            let again = await Caller().download(ReportForm(destination: file), session: session).response()
            #expect(again.error?.kind == .fileOperationFailed)
            #expect(again.resumeData == nil)  // the stub gave no validator: nothing kept
            stubs.stub(.get, "https://api.example.com/me/avatar.png", StubResponse(body: body.prefix(100)))
            let avatar = AvatarForm(destination: folder.appendingPathComponent("avatars/me.png"))
            for _ in 0..<2 {
                let saved = try await Caller().download(avatar, session: session).fileURL()
                #expect(try Data(contentsOf: saved) == body.prefix(100))
            }

            let downloader = ReportDownloader(
                saved: folder.appendingPathComponent("resume.json"), session: session)
            #expect(
                try Data(contentsOf: try await downloader.start(into: folder.appendingPathComponent("s.pdf")))
                    == body)

            // A partial download, as a failed one leaves it; this server answers 200 (no ranges), so the
            // body is written from zero and the result is still the server's file.
            let partial = folder.appendingPathComponent(".r.pdf.partial")
            try body.prefix(10_000).write(to: partial)
            let resumeData = partialDownload(
                url: "https://api.example.com/reports/2026.pdf", partialFileURL: partial,
                bytesReceived: 10_000, totalBytes: Int64(body.count), entityTag: #""v1""#)
            try resumeData.encoded().write(to: downloader.saved)
            #expect(try ResumeData(encoded: resumeData.encoded()) == resumeData)
            let resumed = try await downloader.resume(into: folder.appendingPathComponent("r.pdf"))
            #expect(try Data(contentsOf: resumed) == body)
            let resumeRequest = try #require(stubs.requests.last)
            #expect(resumeRequest.value(forHTTPHeaderField: "Range")?.hasPrefix("bytes=10000-") == true)
            #expect(resumeRequest.value(forHTTPHeaderField: "If-Range") == #""v1""#)

            let log = folder.appendingPathComponent("app.log")
            try Data("started\n".utf8).write(to: log)
            #expect(try await Uploader(session: session).uploadLog(log).id == "log-1")
            #expect(stubs.requests.last?.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            #expect(stubs.requests.last?.httpMethod == "POST")

            let backup = await Caller().upload(BackupUpload(archive: log), session: session).response()
            #expect(backup.error == nil)

            let video = folder.appendingPathComponent("clip.mp4")
            try Data(repeating: 1, count: 2_000).write(to: video)
            let upload = VideoUpload(video: video, title: "Clip")
            #expect(upload.multipartFormData.contentType.hasPrefix("multipart/form-data; boundary="))
            #expect(upload.encodingMemoryThreshold == 10_000_000)
            #expect(await Caller().upload(upload, session: session).response().error == nil)
        }
    }
}
