import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Download destinations: what is there is never lost")
struct DownloadDestinationTests {
    let client = Client()
    let size: Int64 = 300_000

    /// Downloads `/files/{size}` to `destination` and returns the response.
    private func download(
        to destination: URL, options: DownloadDestinationOptions = [], tag: String = uniqueDownloadTag()
    ) async throws -> DownloadResponse {
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?tag=\(tag)"), destination: destination,
            destinationOptions: options)
        return await client.download(form).response()
    }

    /// Expects a failed move that kept the complete download, and returns its resume data.
    private func expectKeptAfterRefusal(
        _ response: DownloadResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ResumeData {
        #expect(response.error?.kind == .fileOperationFailed, sourceLocation: sourceLocation)
        #expect(response.fileURL == nil, sourceLocation: sourceLocation)
        let resumeData = try #require(response.resumeData, sourceLocation: sourceLocation)
        #expect(resumeData.bytesReceived == size, sourceLocation: sourceLocation)
        #expect(resumeData.totalBytes == size, sourceLocation: sourceLocation)
        #expect(
            FileManager.default.fileExists(atPath: resumeData.partialFileURL.path),
            sourceLocation: sourceLocation)
        return resumeData
    }

    @Test(
        "A folder at the destination is left untouched; the bytes are kept and finish elsewhere without a body"
    )
    func destinationIsAFolder() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let folder = scratch.file("report")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try Data("me too".utf8).write(to: folder.appendingPathComponent("sub/inner.txt"))
        let before = try folderSnapshot(folder)

        for options: DownloadDestinationOptions in [
            [], [.removePreviousFile, .createIntermediateDirectories],
        ] {
            let request = client.download(
                TestDownloadForm(
                    url: try await DemoServer.url("/files/\(size)"), destination: folder,
                    destinationOptions: options))
            let response = await request.response()
            let resumeData = try expectKeptAfterRefusal(response)
            #expect(request.resumeData?.partialFileURL == resumeData.partialFileURL)
            #expect(request.resumeData?.bytesReceived == size)
            #expect(response.error?.failureReason.contains("it is a folder") == true)
            #expect(try folderSnapshot(folder) == before)
            try? FileManager.default.removeItem(at: resumeData.partialFileURL)
        }

        // Once more, then to another destination from the resume data: one request, no body.
        let resumeData = try expectKeptAfterRefusal(try await download(to: folder))
        let tag = uniqueDownloadTag()
        let other = scratch.file("report.bin")
        let request = client.download(
            ResumeForm(
                resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?tag=\(tag)"),
                destination: other))
        let file = try await request.fileURL()
        #expect(file == other)
        #expect(try await matchesServerFile(file, size: size))
        #expect(request.request?.value(forHTTPHeaderField: "Range") == "bytes=\(size)-")
        #expect(request.response?.statusCode == 416)
        let stats = try await TagCounters.read(tag)
        #expect(stats.requests == 1)
        #expect(stats.bytesSent == 0)
        #expect(!FileManager.default.fileExists(atPath: resumeData.partialFileURL.path))
        #expect(try folderSnapshot(folder) == before)
        #expect(try scratch.contents() == ["report", "report.bin"])
    }

    @Test("An existing file is kept by default and replaced with .removePreviousFile")
    func existingFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = try scratch.write(Data("my own file".utf8), to: "data.bin")

        let refused = try await download(to: destination, options: .createIntermediateDirectories)
        let resumeData = try expectKeptAfterRefusal(refused)
        #expect(refused.error?.failureReason.contains(".removePreviousFile") == true)
        #expect(try Data(contentsOf: destination) == Data("my own file".utf8))

        // The kept bytes replace the file once the form allows it, without downloading them again.
        let tag = uniqueDownloadTag()
        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?tag=\(tag)"),
            destination: destination, destinationOptions: .removePreviousFile)
        #expect(try await matchesServerFile(try await client.download(form).fileURL(), size: size))
        #expect(try await TagCounters.read(tag).bytesSent == 0)
        #expect(try scratch.contents() == ["data.bin"])

        // A fresh download replaces it too, and leaves nothing else behind.
        let again = try await download(to: destination, options: .removePreviousFile)
        #expect(again.error == nil)
        #expect(try await matchesServerFile(destination, size: size))
        #expect(try scratch.contents() == ["data.bin"])
    }

    @Test("A missing folder is an error unless the form asks to create it")
    func missingFolder() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("a/b/file.bin")

        let refused = try await download(to: destination, options: .removePreviousFile)
        let resumeData = try expectKeptAfterRefusal(refused)
        defer { try? FileManager.default.removeItem(at: resumeData.partialFileURL) }
        #expect(refused.error?.failureReason.contains(".createIntermediateDirectories") == true)
        #expect(try scratch.contents().isEmpty)  // no folder was created

        let created = try await download(to: destination, options: .createIntermediateDirectories)
        #expect(created.fileURL == destination)
        #expect(try await matchesServerFile(destination, size: size))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("a/b").path) == ["file.bin"])
    }

    @Test("A folder that is a file is an error with any options, and keeps the bytes")
    func folderIsAFile() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(Data("a plain file".utf8), to: "plain")
        let before = try folderSnapshot(scratch.url)
        let options: DownloadDestinationOptions = [.removePreviousFile, .createIntermediateDirectories]

        let refused = try await download(to: scratch.file("plain/inside.bin"), options: options)
        let resumeData = try expectKeptAfterRefusal(refused)
        defer { try? FileManager.default.removeItem(at: resumeData.partialFileURL) }
        #expect(refused.error?.failureReason.contains("folder is a file") == true)
        #expect(try folderSnapshot(scratch.url) == before)
        // The kept bytes are somewhere that could take them: the temporary directory.
        #expect(resumeData.partialFileURL.path.hasPrefix(FileManager.default.temporaryDirectory.path))
    }

    @Test("A folder that cannot be written is an error and keeps the bytes (where permissions apply)")
    func readOnlyFolder() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let folder = scratch.file("locked")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        // Root ignores permission bits: find out what this process really may do there.
        let probe = folder.appendingPathComponent("probe")
        let writable = FileManager.default.createFile(atPath: probe.path, contents: nil)
        try? FileManager.default.removeItem(at: probe)

        let response = try await download(to: folder.appendingPathComponent("file.bin"))
        if writable {
            // Running as root: the folder is writable in fact, so the download lands there.
            #expect(response.error == nil)
            #expect(try await matchesServerFile(folder.appendingPathComponent("file.bin"), size: size))
        } else {
            let resumeData = try expectKeptAfterRefusal(response)
            defer { try? FileManager.default.removeItem(at: resumeData.partialFileURL) }
            #expect(response.error?.failureReason.contains("cannot be written") == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }
}
