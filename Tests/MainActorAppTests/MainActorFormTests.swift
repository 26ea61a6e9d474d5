import Formwork
import FormworkTestSupport
import Foundation
import Testing

// Forms declared in a main-actor module, as a new user writes them: no `nonisolated`, no
// `Sendable`. Formwork reads each one once, on the caller's actor, when it is sent.

/// A main-actor class form (not `Sendable`) that counts how often its URL is read.
final class CountingBurstForm: RequestFormable {
    var key: String
    private(set) var urlReads = 0

    init(key: String) { self.key = key }

    var url: String {
        urlReads += 1
        return "https://api.example.com/fault/burst?key=\(key)&failures=1&status=503"
    }
}

/// What `/fault/burst` answers once the burst is over.
nonisolated struct BurstAnswer: Decodable, Sendable {
    let key: String
    let attempt: Int
}

/// What `/upload` says it received.
nonisolated struct UploadReceipt: Decodable, Sendable {
    let bytes: Int
    let md5: String?
    let contentType: String?
    let parts: [Part]?

    nonisolated struct Part: Decodable, Sendable {
        let name: String
        let bytes: Int
    }
}

struct NoteUpload: UploadDataFormable {
    let note: String
    var url: String { "https://api.example.com/upload" }
    var data: Data { Data(note.utf8) }
}

struct AvatarUpload: UploadMultipartFormable {
    let image: Data
    var url: String { "https://api.example.com/upload" }
    var multipartFormData: MultipartFormData {
        var form = MultipartFormData()
        form.append(Data("42".utf8), name: "userID")
        form.append(image, name: "avatar", fileName: "a.png", mimeType: "image/png")
        return form
    }
}

struct SmallFileDownload: DownloadFormable {
    let destination: URL
    var url: String { "https://api.example.com/files/1000" }
}

struct HalfFileDownload: DownloadFormable {
    let destination: URL
    var url: String { "https://api.example.com/files/400000?cutAt=200000" }
}

struct ResumeHalfFile: DownloadResumeFormable {
    let resumeData: ResumeData
    let destination: URL
    var url: String { "https://api.example.com/files/400000" }
}

/// Generic code calls the plain download overload even for a resume form: Formwork finds the
/// resume conformance at run time, which for a main-actor conformance works on the main actor.
func downloadAny<F: DownloadFormable>(_ form: F, session: Session) -> DownloadRequest {
    Caller().download(form, session: session)
}

/// A stream form is `Sendable` (its factory runs for every attempt, off the caller's actor): in a
/// main-actor module it is declared `nonisolated`. This module's shared-headers extension is
/// main-actor, which a nonisolated form cannot use: it declares its own headers.
nonisolated struct LogStreamUpload: UploadStreamFormable {
    let text: String
    var url: String { "https://api.example.com/upload" }
    var headers: HTTPHeaders { ["Content-Type": "text/plain"] }
    func makeStream() throws -> InputStream { InputStream(data: Data(text.utf8)) }
}

@Suite("Main-actor forms against the demo server")
struct MainActorFormTests {
    @Test("a main-actor class form is read once, when sent; a retry sends what was read then")
    func readOnce() async throws {
        let key = "main-actor-\(UUID().uuidString)"
        let form = CountingBurstForm(key: key)
        let request = Caller().request(form, session: try await Session.demo())
            .retry(.exponential(retryLimit: 2, baseDelay: 0.01))
        #expect(form.urlReads == 1)
        form.key = "changed-after-sending"
        let answer = try await request.decode(BurstAnswer.self)
        #expect(answer.attempt == 2)  // the first attempt got a 503 and was retried
        #expect(answer.key == key)
        #expect(form.urlReads == 1)
    }

    @Test("data and multipart uploads from main-actor forms send their bodies")
    func uploads() async throws {
        let session = try await Session.demo()
        let note = try await Caller().upload(NoteUpload(note: "hello"), session: session)
            .decode(UploadReceipt.self)
        #expect(note.bytes == 5)
        #expect(note.md5 == "5d41402abc4b2a76b9719d911017c592")  // md5("hello")
        let image = Data(repeating: 7, count: 3000)
        let avatar = try await Caller().upload(AvatarUpload(image: image), session: session)
            .decode(UploadReceipt.self)
        #expect(avatar.parts?.map(\.name) == ["userID", "avatar"])
        #expect(avatar.parts?.last?.bytes == 3000)
    }

    @Test("a nonisolated stream form uploads from the main actor")
    func streamUpload() async throws {
        let receipt = try await Caller().upload(
            LogStreamUpload(text: "stream body"), session: try await Session.demo()
        )
        .decode(UploadReceipt.self)
        #expect(receipt.bytes == 11)
        #expect(receipt.contentType == "text/plain")
    }

    @Test("a main-actor resume form sent through generic code fetches only the missing half")
    func resumeThroughGenericCode() async throws {
        let session = try await Session.demo()
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-main-actor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let cut = await Caller().download(HalfFileDownload(destination: destination), session: session)
            .response()
        let resumeData = try #require(cut.resumeData)
        #expect(resumeData.bytesReceived == 200_000)
        let request = downloadAny(
            ResumeHalfFile(resumeData: resumeData, destination: destination), session: session)
        #expect(try await request.fileURL() == destination)
        #expect(request.request?.value(forHTTPHeaderField: "Range")?.hasPrefix("bytes=200000-") == true)
        #expect(try Data(contentsOf: destination) == DemoFileContent.bytes(size: 400_000))
    }

    @Test("a download from a main-actor form lands at its destination")
    func download() async throws {
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-main-actor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let file = try await Caller().download(
            SmallFileDownload(destination: destination), session: try await Session.demo()
        )
        .fileURL()
        #expect(file == destination)
        #expect(try Data(contentsOf: destination) == DemoFileContent.bytes(size: 1000))
    }
}
