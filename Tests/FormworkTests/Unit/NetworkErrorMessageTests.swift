import Foundation
import Testing

@testable import Formwork

@Suite("NetworkError user messages")
struct NetworkErrorMessageTests {
    private var plain: MessageCatalog {
        var catalog = MessageCatalog.english
        catalog.showsCodes = false
        return catalog
    }

    private func transport(_ code: URLError.Code) -> NetworkError {
        .transport(URLError(code), request: nil, response: nil, data: nil)
    }

    private func status(_ code: Int) -> NetworkError {
        let response = HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/x")!, statusCode: code, httpVersion: "HTTP/1.1",
            headerFields: nil)
        return NetworkError(.unacceptableStatusCode, failureReason: "status", response: response)
    }

    @Test(
        "Transport failures are sorted by class",
        arguments: [
            (URLError.Code.timedOut, Words.timedOut),
            (.notConnectedToInternet, Words.offline),
            (.cannotConnectToHost, Words.cannotConnect),
            (.cannotFindHost, Words.cannotConnect),
            (.networkConnectionLost, Words.connectionLost),
            (.unknown, Words.connectionLost),
            (.secureConnectionFailed, Words.secureConnectionFailed),
            (.serverCertificateUntrusted, Words.secureConnectionFailed),
            (.cannotParseResponse, Words.unreadableResponse),
            (.badURL, Words.networkFailure),
        ])
    func transportClasses(code: URLError.Code, expected: Words) {
        let error = transport(code)
        #expect(error.kind == .transport)
        #expect(error.isNetworkFailure)
        #expect(error.userMessage(using: plain) == expected.text(in: plain))
    }

    @Test(
        "HTTP statuses are sorted by class",
        arguments: [
            (400, Words.badRequest), (401, Words.unauthorized), (403, Words.forbidden), (404, Words.notFound),
            (408, Words.tooManyRequests), (429, Words.tooManyRequests), (418, Words.clientError),
            (500, Words.serverError),
            (503, Words.serverError), (302, Words.unexpectedStatus),
        ])
    func statusClasses(code: Int, expected: Words) {
        #expect(status(code).userMessage(using: plain) == expected.text(in: plain))
        #expect(!status(code).isNetworkFailure)
    }

    @Test(
        "A lost connection reads the same on every platform: Linux's -1 and -1011 as Apple's -1005",
        arguments: [URLError.Code.unknown, .badServerResponse, .networkConnectionLost])
    func connectionLostEverywhere(reported: URLError.Code) throws {
        // What Apple platforms give for a body cut short and for a close before any response.
        let apple = transport(.networkConnectionLost)
        let linux = NetworkError.transport(
            URLError(reported, userInfo: [NSLocalizedDescriptionKey: "transfer closed"]), request: nil,
            response: nil, data: nil)
        #expect(linux.kind == apple.kind)
        #expect(linux.kind == .transport)
        #expect(linux.urlErrorCode == .networkConnectionLost)
        #expect(linux.isNetworkFailure)
        var codes = MessageCatalog.english
        codes.showsCodes = true
        #expect(linux.userMessage(using: codes) == apple.userMessage(using: codes))
        #expect(linux.userMessage(using: codes) == "\(codes.connectionLost) (-1005)")
        #expect(linux.userMessage(using: plain) == apple.userMessage(using: plain))
        #expect(RetryPolicy.defaultRetryableURLErrorCodes.contains(.networkConnectionLost))
        // Nothing is lost: the error as reported is the new one's underlying error.
        let underlying = try #require(linux.underlyingError as? URLError)
        #expect(underlying.localizedDescription == "transfer closed")
        if reported != .networkConnectionLost {
            let original = try #require(underlying.userInfo[NSUnderlyingErrorKey] as? URLError)
            #expect(original.code == reported)
        }
    }

    @Test("A -1011 that came with a response is an unreadable response, not a lost connection")
    func badServerResponseWithResponse() {
        let response = HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: nil)
        let error = NetworkError.transport(
            URLError(.badServerResponse), request: nil, response: response, data: nil)
        #expect(error.urlErrorCode == .badServerResponse)
        #expect(error.userMessage(using: plain) == plain.unreadableResponse)
    }

    @Test("Codes are appended when the catalog shows them, as DEBUG builds do by default")
    func codesAppended() {
        var catalog = MessageCatalog.english
        catalog.showsCodes = true
        #expect(transport(.timedOut).userMessage(using: catalog) == "The request timed out. (-1001)")
        #expect(status(500).userMessage(using: catalog) == "\(catalog.serverError) (500)")
        #if DEBUG
            #expect(MessageCatalog.english.showsCodes)
        #else
            #expect(!MessageCatalog.english.showsCodes)
        #endif
    }

    @Test("Unreadable responses and invalid requests get their own words")
    func otherClasses() {
        let unreadable = NetworkError(.keyPathNotFound, failureReason: "missing")
        #expect(unreadable.userMessage(using: plain) == plain.unreadableResponse)
        #expect(unreadable.isResponseSerializationError)
        let invalid = NetworkError(.invalidURL, failureReason: "bad")
        #expect(invalid.userMessage(using: plain) == plain.invalidRequest)
        let business = NetworkError(
            .business, failureReason: "b",
            details: .init(businessCode: "1001", businessMessage: "Insufficient balance"))
        #expect(business.userMessage(using: plain) == "Insufficient balance")
        #expect(business.businessCode == "1001")
        #expect(business.reason == nil)
        let silent = NetworkError(.business, failureReason: "b", details: .init(businessCode: "7"))
        #expect(silent.userMessage(using: plain) == plain.businessFailure)
        var coded = plain
        coded.showsCodes = true
        #expect(silent.userMessage(using: coded) == "\(plain.businessFailure) (7)")
        for kind in [NetworkError.Kind.invalidHeader, .parameterEncodingFailed, .multipartEncodingFailed] {
            #expect(kind.isInvalidRequest)
            #expect(NetworkError(kind, failureReason: "x").userMessage(using: plain) == plain.invalidRequest)
        }
        let missingFile = NetworkError(
            .fileOperationFailed, failureReason: "x", details: .init(reason: .fileNotFound))
        #expect(missingFile.userMessage(using: plain) == plain.fileOperationFailed)
        let full = NetworkError(.outbox, failureReason: "x", details: .init(reason: .full))
        #expect(full.userMessage(using: plain) == plain.outboxFailed)
        #expect(full.userMessage(using: coded) == "\(plain.outboxFailed) (full)")
        let expired = NetworkError(.outbox, failureReason: "x", details: .init(reason: .expired))
        #expect(expired.userMessage(using: plain) == plain.outboxExpired)
    }

    @Test("A cancellation is recognisable and is not a network failure")
    func cancellation() {
        let error = transport(.cancelled)
        #expect(error.isCancelled)
        #expect(!error.isNetworkFailure)
        #expect(error.kind == .cancelled)
    }

    @Test("An app can replace the words, e.g. with Chinese")
    func replaceableWords() {
        // The catalog is global and other suites run in parallel: change only a word no other
        // test reads, and keep `showsCodes` as it is.
        let saved = MessageCatalog.current
        defer { MessageCatalog.current = saved }
        var chinese = saved
        chinese.secureConnectionFailed = "无法建立安全连接"
        MessageCatalog.current = chinese
        let message = transport(.secureConnectionFailed).userMessage
        #expect(message == (saved.showsCodes ? "无法建立安全连接 (-1200)" : "无法建立安全连接"))
    }
}
