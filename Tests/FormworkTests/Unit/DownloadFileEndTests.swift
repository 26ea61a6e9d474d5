import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download's file once its request ended.
@Suite struct DownloadFileEndTests {
    private func head(_ status: Int = 200) throws -> HTTPURLResponse {
        let url = try #require(URL(string: "http://127.0.0.1/f"))
        return try #require(
            HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Length": "10", "ETag": "\"v1\""]))
    }

    @Test("A response of an attempt that already ended opens no file, and leaves the folder as it was")
    func lateHeadOpensNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = DownloadFile(destination: scratch.file("f"))
        // The request was cancelled while its response head was on its way.
        #expect(file.close(attempt: 1, error: NetworkError.cancelled(request: nil, response: nil)) == nil)
        #expect(file.open(try head(), attempt: 1) == .collectInMemory)
        #expect(try scratch.contents() == [])
    }

    @Test("A later attempt (a reload after the end) opens its file as usual")
    func laterAttemptOpens() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = DownloadFile(destination: scratch.file("f"))
        #expect(file.close(attempt: 1, error: NetworkError.cancelled(request: nil, response: nil)) == nil)
        let opened = file.open(try head(), attempt: 2)
        #expect(opened == .write(TransferProgress(completedBytes: 0, totalBytes: 10)))
        let progress = try file.write(Data(count: 10))
        #expect(progress.completedBytes == 10)
        #expect(file.close(attempt: 2, error: nil) == nil)
        #expect(try scratch.contents() == ["f"])
    }
}
