import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Streamed and resumable downloads of large files")
struct ResumeTests {
    let client = Client()

    private func uniqueTag() -> String { "t\(UUID().uuidString.prefix(12))" }

    @Test(
        "Downloads of several sizes are byte-identical to the server's file",
        arguments: [0, 1, 65_537, 5_000_000])
    func sizes(size: Int64) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)"), destination: scratch.file("f"))
        let file = try await client.download(form).fileURL()
        #expect(try await matchesServerFile(file, size: size))
        #expect(try scratch.contents() == ["f"])
    }

    @Test("A download cut at 50 % resumes and fetches only the missing half")
    func resumeAfterCut() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 8_000_000
        let (firstTag, secondTag) = (uniqueTag(), uniqueTag())
        let cut = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=\(size / 2)&tag=\(firstTag)"),
            destination: scratch.file("big"))
        let failed = await client.download(cut).response()
        let error = try #require(failed.error)
        #expect(error.isNetworkFailure)
        let resumeData = try #require(failed.resumeData)
        let kept = expectKept(resumeData.bytesReceived, cut: size / 2)
        #expect(resumeData.validator != nil)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("big").path))

        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?tag=\(secondTag)"),
            destination: scratch.file("big"))
        let request = client.download(form)
        let file = try await request.fileURL()
        #expect(try await matchesServerFile(file, size: size))
        // One request for the whole rest, starting where the cut left off.
        #expect(request.request?.value(forHTTPHeaderField: "Range") == "bytes=\(kept)-")
        #expect(try await TagCounters.read(secondTag).requests == 1)
        #expect(try await TagCounters.read(secondTag).bytesSent == size - kept)
        #expect(try scratch.contents() == ["big"])
    }

    @Test("Resume data survives being persisted and reloaded (an app restart)")
    func persistedResumeData() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 3_000_000
        let cut = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=1000000"), destination: scratch.file("doc"))
        let saved = try #require(await client.download(cut).response().resumeData).encoded()
        try saved.write(to: scratch.file("resume.json"))

        let reloaded = try ResumeData(encoded: Data(contentsOf: scratch.file("resume.json")))
        let kept = expectKept(reloaded.bytesReceived, cut: 1_000_000)
        let tag = uniqueTag()
        let form = ResumeForm(
            resumeData: reloaded, url: try await DemoServer.url("/files/\(size)?tag=\(tag)"),
            destination: scratch.file("doc"))
        #expect(try await matchesServerFile(try await client.download(form).fileURL(), size: size))
        #expect(try await TagCounters.read(tag).bytesSent == size - kept)
    }

    @Test("cancel(producingResumeData:) keeps what arrived; the resume completes the file")
    func resumeAfterCancel() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 4_000_000
        // 40 s at this rate: the test cancels long before, even when a busy machine is slow to
        // deliver the first progress value.
        let slow = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?rate=100000"), destination: scratch.file("slow"))
        let request = client.download(slow)
        for await progress in request.progressUpdates where progress.completedBytes > 0 {
            break
        }
        let resumeData = try #require(await request.cancel(producingResumeData: true))
        #expect(resumeData.bytesReceived > 0)
        #expect(resumeData.bytesReceived < size)
        #expect(FileManager.default.fileExists(atPath: resumeData.partialFileURL.path))

        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)"),
            destination: scratch.file("slow"))
        #expect(try await matchesServerFile(try await client.download(form).fileURL(), size: size))
        #expect(try scratch.contents() == ["slow"])
    }

    @Test("A plain cancel removes the partial file and produces no resume data")
    func plainCancel() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let slow = TestDownloadForm(
            url: try await DemoServer.url("/files/4000000?rate=100000"), destination: scratch.file("x"))
        let request = client.download(slow)
        for await progress in request.progressUpdates where progress.completedBytes > 0 {
            break
        }
        #expect(await request.cancel(producingResumeData: false) == nil)
        #expect(try scratch.contents().isEmpty)
    }

    @Test("When the file changed on the server, the resume restarts cleanly from zero")
    func fileChanged() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 1_000_000
        let cut = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=400000&version=1"),
            destination: scratch.file("v"))
        let resumeData = try #require(await client.download(cut).response().resumeData)
        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?version=2"),
            destination: scratch.file("v"))
        let file = try await client.download(form).fileURL()
        #expect(try await matchesServerFile(file, size: size, version: 2))
    }

    @Test("A 206 for the wrong range is not appended: one request for the whole body finishes the file")
    func wrongRange() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 1_000_000
        let cut = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=300000"), destination: scratch.file("w"))
        let resumeData = try #require(await client.download(cut).response().resumeData)
        let tag = uniqueTag()
        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?wrongRange=1&tag=\(tag)"),
            destination: scratch.file("w"))
        let request = client.download(form)
        #expect(try await matchesServerFile(try await request.fileURL(), size: size))
        // The second request asks for the whole body, without a range.
        #expect(request.request?.value(forHTTPHeaderField: "Range") == nil)
        #expect(try await TagCounters.read(tag).requests == 2)
    }

    @Test("A 206 for the wrong range keeps every byte already on disk, also when the recheck is cut short")
    func wrongRangeKeepsBytes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 1_000_000
        let cutAt: Int64 = 300_000
        let cut = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=\(cutAt)"), destination: scratch.file("k"))
        let resumeData = try #require(await client.download(cut).response().resumeData)
        let kept = expectKept(resumeData.bytesReceived, cut: cutAt)
        // The wrong 206 is refused; the request for the whole body that follows is cut at 100,000
        // bytes, before it reaches what is on disk: the bytes kept must still be there (a
        // transport that drops bytes at a cut may have kept fewer than that request's first
        // bytes, which then extend the file).
        let form = ResumeForm(
            resumeData: resumeData, url: try await DemoServer.url("/files/\(size)?wrongRange=1&cutAt=100000"),
            destination: scratch.file("k"))
        let failed = await client.download(form).response()
        #expect(failed.error != nil)
        let left = try #require(failed.resumeData)
        #expect(left.bytesReceived >= kept && left.bytesReceived <= max(kept, 100_000))
        let partial = try Data(contentsOf: left.partialFileURL)
        #expect(partial == DemoFileContent.bytes(in: 0..<left.bytesReceived))
        // And the kept bytes finish the file with only the rest.
        let tag = uniqueTag()
        let finish = ResumeForm(
            resumeData: left, url: try await DemoServer.url("/files/\(size)?tag=\(tag)"),
            destination: scratch.file("k"))
        #expect(try await matchesServerFile(try await client.download(finish).fileURL(), size: size))
        #expect(try await TagCounters.read(tag).bytesSent == size - left.bytesReceived)
    }

    @Test("A retried download resumes where the cut left it instead of starting over")
    func retryResumes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 4_000_000
        let tag = uniqueTag()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=\(size / 2)&tag=\(tag)"),
            destination: scratch.file("r"))
        let request = client.download(form).retry(RetryPolicy(retryLimit: 5, baseDelay: 0.01))
        #expect(try await matchesServerFile(try await request.fileURL(), size: size))
        let stats = try await TagCounters.read(tag)
        if TransportUnderTest.keepsEveryByteBeforeACut {
            #expect(stats.requests == 2)
            #expect(stats.bytesSent == size)
        } else {
            // Each cut may drop some bytes, so a resume can be cut again. Every response of this
            // tag is cut after size / 2 bytes: a download that started over could never finish,
            // so the whole file above proves each retry resumed.
            #expect(stats.requests >= 2)
        }
    }

    @Test("Download progress of a large file never goes backwards and ends at the total")
    @MainActor
    func progress() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let recorder = ProgressRecorder()
        let size: Int64 = 16_000_000
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)"), destination: scratch.file("p"))
        let response = await withCheckedContinuation { continuation in
            client.download(form).progress(recorder).response { continuation.resume(returning: $0) }
        }
        #expect(response.error == nil)
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: size, totalBytes: size))
        #expect(recorder.values.allSatisfy { $0.totalBytes == size })
    }

    @Test("Without Content-Length the fraction is unknown until the end")
    func unknownTotal() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/300000?chunked=1"), destination: scratch.file("c"))
        // One plain request: with ranges, Content-Range would tell the total.
        let request = client.download(form, session: Session { $0.downloadSegmentSize = nil })
        var values: [TransferProgress] = []
        for await progress in request.progressUpdates { values.append(progress) }
        #expect(values.dropLast().allSatisfy { $0.fractionCompleted == nil })
        #expect(values.last == TransferProgress(completedBytes: 300_000, totalBytes: 300_000))
        #expect(try await matchesServerFile(try await request.fileURL(), size: 300_000))
    }

    @Test("Large downloads are fetched in bounded ranges, one after the other, into one identical file")
    @MainActor
    func segments() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 20_000_000
        let tag = uniqueTag()
        let session = Session { $0.downloadSegmentSize = 4_000_000 }
        let recorder = ProgressRecorder()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?tag=\(tag)"), destination: scratch.file("s"))
        let request = client.download(form, session: session).progress(recorder)
        let file = try await request.fileURL()
        #expect(try await matchesServerFile(file, size: size))
        let stats = try await TagCounters.read(tag)
        #expect(stats.requests == 5)
        #expect(stats.bytesSent == size)
        #expect(request.request?.value(forHTTPHeaderField: "Range") == "bytes=16000000-19999999")
        #expect(request.request?.value(forHTTPHeaderField: "If-Range") != nil)
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: size, totalBytes: size))
        #expect(recorder.values.allSatisfy { $0.totalBytes == size })
    }

    @Test("A cut download's progress ends at the bytes really kept, not at the last throttled value")
    @MainActor
    func progressAtCut() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 1_048_576
        let cut: Int64 = 393_216  // 384 KiB: past one notification step (256 KiB), short of two
        let session = Session { $0.downloadSegmentSize = nil }
        let recorder = ProgressRecorder()
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?cutAt=\(cut)"), destination: scratch.file("cut"))
        let response = await withCheckedContinuation { continuation in
            client.download(form, session: session).progress(recorder).response {
                continuation.resume(returning: $0)
            }
        }
        let kept = expectKept(try #require(response.resumeData?.bytesReceived), cut: cut)
        #expect(recorder.isMonotonic)
        #expect(recorder.values.last == TransferProgress(completedBytes: kept, totalBytes: size))
    }
}
