import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which failure wins when an attempt's exchange ends (issue 24 §1: the rule in one place).
@Suite("Attempt verdict: which failure wins")
struct AttemptVerdictTests {
    private let request = URLRequest(url: URL(fileURLWithPath: "/verdict"))

    private func head(_ status: Int) throws -> ResponseHead {
        let url = try #require(URL(string: "http://127.0.0.1/verdict"))
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:]))
        return ResponseHead(response)
    }

    private func failure(_ verdict: AttemptVerdict) -> NetworkError? {
        if case .failed(let error) = verdict { return error }
        return nil
    }

    @Test("A failure settled during the attempt wins over the transport's error and the response")
    func settledWins() throws {
        let settled = NetworkError(.invalidHeader, failureReason: "settled")
        let verdict = AttemptVerdict.of(
            settled: settled, error: URLError(.cancelled), response: try head(200), request: request,
            body: nil,
            isCompleteOnDisk: true)
        #expect(failure(verdict)?.failureReason == "settled")
    }

    @Test("A transport's own NetworkError is kept; any other error becomes a transport failure")
    func transportErrors() throws {
        let own = NetworkError(.requestBuildFailed, failureReason: "no stream")
        let kept = AttemptVerdict.of(
            settled: nil, error: own, response: nil, request: request, body: nil, isCompleteOnDisk: false)
        #expect(failure(kept)?.kind == .requestBuildFailed)
        let wrapped = AttemptVerdict.of(
            settled: nil, error: URLError(.networkConnectionLost), response: try head(200), request: request,
            body: Data("partial".utf8), isCompleteOnDisk: true)
        #expect(failure(wrapped)?.kind == .transport)
        #expect(failure(wrapped)?.data == Data("partial".utf8))
        let cancelled = AttemptVerdict.of(
            settled: nil, error: URLError(.cancelled), response: nil, request: request, body: nil,
            isCompleteOnDisk: false)
        #expect(failure(cancelled)?.isCancelled == true)
    }

    @Test("A complete file on disk succeeds whatever the status; any other HTTP response is validated")
    func responses() throws {
        let complete = AttemptVerdict.of(
            settled: nil, error: nil, response: try head(416), request: request, body: nil,
            isCompleteOnDisk: true)
        guard case .succeeded = complete else {
            Issue.record("a complete file did not succeed: \(complete)")
            return
        }
        let validated = AttemptVerdict.of(
            settled: nil, error: nil, response: try head(503), request: request, body: nil,
            isCompleteOnDisk: false)
        guard case .validate(let response) = validated else {
            Issue.record("a response was not validated: \(validated)")
            return
        }
        #expect(response.statusCode == 503)
    }

    @Test("A response that is not HTTP fails with badServerResponse, and the disk is not asked")
    func notHTTP() {
        var asked = false
        let verdict = AttemptVerdict.of(
            settled: nil, error: nil, response: nil, request: request, body: Data(),
            isCompleteOnDisk: {
                asked = true
                return true
            }())
        #expect(failure(verdict)?.kind == .transport)
        #expect((failure(verdict)?.underlyingError as? URLError)?.code == .badServerResponse)
        #expect(!asked)
    }
}
