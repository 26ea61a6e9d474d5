import Formwork
import Foundation
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real Formwork requests through `Session { $0.transport = AsyncHTTPClientTransport() }`.
@Suite("Formwork over AsyncHTTPClient")
struct SessionTests {
    struct Client: Requestable {}

    struct EchoReply: Decodable, Sendable {
        let method: String
        let path: String
        let query: String
    }

    struct EchoForm: TypedFormable {
        typealias Response = EchoReply
        var url: String
        var parameters: Parameters = [:]
    }

    struct Attempt: Decodable, Sendable {
        let attempt: Int
    }

    struct BurstForm: TypedFormable {
        typealias Response = Attempt
        var url: String
    }

    struct FileDownload: DownloadFormable {
        var url: String
        var destination: URL
    }

    struct FileUpload: UploadFileFormable {
        var url: String
        var fileURL: URL
    }

    struct UploadReply: Decodable, Sendable {
        let bytes: Int
        let md5: String
    }

    let client = Client()
    let session = Session { $0.transport = AsyncHTTPClientTransport() }

    @Test("A GET with parameters is sent and its JSON decoded")
    func getAndDecode() async throws {
        let form = EchoForm(
            url: try Server.url("/echo").absoluteString, parameters: ["city": "Paris", "page": 2])
        let reply = try await client.send(form, session: session)
        #expect(reply.method == "GET")
        #expect(reply.query == "city=Paris&page=2")
    }

    @Test("A redirect is followed through the engine's rules")
    func redirect() async throws {
        let form = EchoForm(url: try Server.url("/redirect?status=302&to=%2Fecho%2Fmoved").absoluteString)
        let reply = try await client.send(form, session: session)
        #expect(reply.path == "/echo/moved")
    }

    struct User: Decodable, Sendable {
        let user: String
    }

    struct ChallengeForm: TypedFormable {
        typealias Response = User
        var url: String
    }

    @Test("A 401 Basic is answered with the session's credential; a wrong one fails with the 401")
    func basicChallenge() async throws {
        let url = try Server.url("/challenge/basic?user=ada&password=lovelace").absoluteString
        let right = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.credentials.server = PasswordCredential(user: "ada", password: "lovelace")
        }
        #expect(try await client.send(ChallengeForm(url: url), session: right).user == "ada")
        let wrong = Session {
            $0.transport = AsyncHTTPClientTransport()
            $0.credentials.server = PasswordCredential(user: "ada", password: "nope")
        }
        let error = await #expect(throws: NetworkError.self) {
            try await client.send(ChallengeForm(url: url), session: wrong)
        }
        #expect(error?.response?.statusCode == 401)
    }

    @Test("A 503 burst is retried until the server recovers")
    func retry() async throws {
        let key = UUID().uuidString
        let form = BurstForm(
            url: try Server.url("/fault/burst?key=\(key)&failures=2&status=503").absoluteString)
        let reply = try await client.request(form, session: session).retry(RetryPolicy(baseDelay: 0.01))
            .decode(Attempt.self)
        #expect(reply.attempt == 3)
    }

    @Test("A download goes to its file with progress, byte for byte what URLSession gets")
    @MainActor
    func download() async throws {
        let size = 8 << 20
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Server.url("/files/\(size)").absoluteString
        let recorder = ProgressValues()
        let request = client.download(
            FileDownload(url: url, destination: directory.appendingPathComponent("ahc")), session: session)
        let file = try await request.progress(recorder).fileURL()
        let reference = try await client.download(
            FileDownload(url: url, destination: directory.appendingPathComponent("urlsession"))
        ).fileURL()
        let (received, expected) = (try Data(contentsOf: file), try Data(contentsOf: reference))
        #expect(received.count == size)
        #expect(md5(received) == md5(expected))
        #expect(recorder.completed == recorder.completed.sorted())
        #expect(recorder.last == TransferProgress(completedBytes: Int64(size), totalBytes: Int64(size)))
    }

    @Test("A file upload arrives whole")
    func upload() async throws {
        let content = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ahc-\(UUID().uuidString)")
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let form = FileUpload(url: try Server.url("/upload").absoluteString, fileURL: file)
        let reply = try await client.upload(form, session: session).decode(UploadReply.self)
        #expect(reply.bytes == content.count)
        #expect(reply.md5 == md5(content))
    }
}

/// The progress values a download showed, on the main actor.
@MainActor
final class ProgressValues: Progressable {
    var completed: [Int64] = []
    var last: TransferProgress?
    func progress(_ progress: TransferProgress) {
        completed.append(progress.completedBytes)
        last = progress
    }
}
