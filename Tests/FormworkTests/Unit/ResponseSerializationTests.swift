import Foundation
import Testing

@testable import Formwork

@Suite("Response serialization")
struct ResponseSerializationTests {
    private struct Item: Decodable, Sendable, Equatable {
        let id: Int
        let title: String
    }

    private func outcome(
        _ body: String?, status: Int = 200, method: String = "GET", headers: [String: String] = [:]
    ) -> RequestOutcome {
        let url = URL(string: "http://127.0.0.1/x")!
        var request = URLRequest(url: url)
        request.httpMethod = method
        return RequestOutcome(
            request: request,
            response: HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers),
            data: body.map { Data($0.utf8) }, error: nil, attempt: 1, duration: 0)
    }

    @Test("Decodes the value at a key path")
    func keyPath() throws {
        let body = #"{"code":0,"msg":"ok","data":{"list":[{"id":1,"title":"a"},{"id":2,"title":"b"}]}}"#
        let items = try ResponseSerialization.decode(
            [Item].self, outcome(body), keyPath: "data.list", decoder: JSONDecoder()
        ).get()
        #expect(items == [Item(id: 1, title: "a"), Item(id: 2, title: "b")])
    }

    @Test("A missing key path is a keyPathNotFound error naming the path")
    func missingKeyPath() {
        let result = ResponseSerialization.decode(
            [Item].self, outcome(#"{"data":{}}"#), keyPath: "data.list", decoder: JSONDecoder())
        #expect(result.failureKind == .keyPathNotFound)
        #expect(result.failureReason?.contains("data.list") == true)
    }

    @Test("A non-JSON body is an invalidJSON error, with and without a key path")
    func notJSON() {
        for keyPath in [nil, "data"] as [String?] {
            let result = ResponseSerialization.decode(
                Item.self, outcome("<html>oops</html>"), keyPath: keyPath, decoder: JSONDecoder())
            #expect(result.failureKind == .invalidJSON)
        }
    }

    @Test(
        "A value at the key path that is not valid JSON is an invalidJSON error that says where",
        arguments: [
            #"{"data": tru}"#, #"{"data": {"id" 1, "title": "a"}}"#, #"{"data": {"id": 01, "title": "a"}}"#,
        ])
    func valueNotJSON(body: String) {
        let result = ResponseSerialization.decode(
            Item.self, outcome(body), keyPath: "data", decoder: JSONDecoder())
        #expect(result.failureKind == .invalidJSON)
        #expect(result.failureReason?.contains("at byte") == true)
    }

    @Test("A value that refuses itself as corrupted (no parser error under it) is a decodingFailed error")
    func valueRefusesItself() {
        struct Refusing: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorruptedError(
                    in: try decoder.singleValueContainer(), debugDescription: "not this one")
            }
        }
        let result = ResponseSerialization.decode(
            Refusing.self, outcome(#"{"data": 1}"#), keyPath: "data", decoder: JSONDecoder())
        #expect(result.failureKind == .decodingFailed)
    }

    @Test("A wrong shape is a decodingFailed error that says where")
    func wrongShape() {
        let result = ResponseSerialization.decode(
            Item.self, outcome(#"{"data":{"id":"one","title":"a"}}"#), keyPath: "data", decoder: JSONDecoder()
        )
        #expect(result.failureKind == .decodingFailed)
        #expect(result.failureReason?.contains("id") == true)
    }

    @Test(
        "Empty bodies decode as empty for 204, 205, HEAD and Content-Length 0",
        arguments: [
            (204, "GET", [:]), (205, "GET", [:]), (200, "HEAD", [:]), (200, "GET", ["Content-Length": "0"]),
        ] as [(Int, String, [String: String])])
    func emptyAllowed(status: Int, method: String, headers: [String: String]) throws {
        let empty = outcome(nil, status: status, method: method, headers: headers)
        #expect(
            try ResponseSerialization.decode(EmptyBody.self, empty, keyPath: nil, decoder: JSONDecoder())
                .get()
                == EmptyBody())
        #expect(
            try ResponseSerialization.decode(Item?.self, empty, keyPath: nil, decoder: JSONDecoder()).get()
                == nil)
        #expect(try ResponseSerialization.data(empty).get() == Data())
        #expect(try ResponseSerialization.string(empty, encoding: nil).get() == "")
    }

    @Test("An empty body fails for a type that cannot be empty, or for a 200 without Content-Length 0")
    func emptyRefused() {
        let noContent = outcome(nil, status: 204)
        #expect(
            ResponseSerialization.decode(Item.self, noContent, keyPath: nil, decoder: JSONDecoder())
                .failureKind
                == .emptyResponse)
        let plain200 = outcome("", status: 200)
        #expect(
            ResponseSerialization.decode(Item?.self, plain200, keyPath: nil, decoder: JSONDecoder())
                .failureKind
                == .emptyResponse)
    }

    @Test("Text uses the declared charset, else UTF-8, and refuses bytes it cannot read")
    func text() throws {
        #expect(try ResponseSerialization.string(outcome("上海"), encoding: nil).get() == "上海")
        var latin = outcome(nil, headers: ["Content-Type": "text/plain; charset=iso-8859-1"])
        latin = RequestOutcome(
            request: latin.request, response: latin.response, data: Data([0x63, 0x61, 0x66, 0xE9]),
            error: nil,
            attempt: 1, duration: 0)
        #expect(try ResponseSerialization.string(latin, encoding: nil).get() == "café")
        let invalid = RequestOutcome(
            request: nil, response: nil, data: Data([0xFF, 0xFE, 0xC3]), error: nil, attempt: 1, duration: 0)
        #expect(ResponseSerialization.string(invalid, encoding: .utf8).failureKind == .stringDecodingFailed)
    }

    @Test("An earlier failure passes through every serializer unchanged")
    func failurePassesThrough() {
        let error = NetworkError(.transport, failureReason: "down", underlyingError: URLError(.timedOut))
        let failed = RequestOutcome(
            request: nil, response: nil, data: nil, error: error, attempt: 1, duration: 0)
        #expect(ResponseSerialization.data(failed).failureKind == .transport)
        #expect(ResponseSerialization.string(failed, encoding: nil).failureKind == .transport)
        #expect(
            ResponseSerialization.decode(Item.self, failed, keyPath: "data", decoder: JSONDecoder())
                .failureKind == .transport)
    }
}

extension Result where Failure == NetworkError {
    /// The failure's kind, or `nil` on success.
    var failureKind: NetworkError.Kind? {
        guard case .failure(let error) = self else { return nil }
        return error.kind
    }

    /// The failure's technical reason, or `nil` on success.
    var failureReason: String? {
        guard case .failure(let error) = self else { return nil }
        return error.failureReason
    }
}
