import Foundation
import Testing

@testable import Formwork

@Suite("Envelope checks and decoding")
struct EnvelopeTests {
    private struct Page: Decodable, Sendable, Equatable {
        let list: [Int]
    }

    private let envelope = Envelope.standard

    private func decode<T: Decodable>(_ type: T.Type, _ outcome: RequestOutcome, at keyPath: String?) throws
        -> T
    {
        try envelope.decode(type, outcome, keyPath: keyPath, decoder: JSONDecoder()).get()
    }

    @Test("A success code lets data, data.list or nothing decode")
    func success() throws {
        let outcome = makeOutcome(body: #"{"code":0,"message":"ok","data":{"list":[1,2]}}"#)
        #expect(envelope.failure(in: outcome) == nil)
        #expect(try decode(Page.self, outcome, at: "data") == Page(list: [1, 2]))
        #expect(try decode([Int].self, outcome, at: "data.list") == [1, 2])
        #expect(try decode(EmptyBody.self, outcome, at: "data.nothing") == EmptyBody())
        let null = makeOutcome(body: #"{"code":"0","message":"ok","data":null}"#)
        #expect(try decode(Int?.self, null, at: "data") == nil)
    }

    @Test("Any other code is a business error with the server's code and message, 2xx or not")
    func business() throws {
        let body = #"{"code":1001,"message":"Insufficient balance","data":null}"#
        let error = try #require(envelope.failure(in: makeOutcome(body: body)))
        #expect(error.kind == .business)
        #expect(error.businessCode == "1001")
        #expect(error.businessMessage == "Insufficient balance")
        #expect(error.statusCode == 200)
        let failed = makeOutcome(status: 500, body: body, error: statusFailure(500, body: body))
        let error500 = try #require(envelope.failure(in: failed))
        #expect(error500.kind == .business)
        #expect(error500.statusCode == 500)
        #expect(error500.userMessage(using: .english).hasPrefix("Insufficient balance"))
    }

    @Test("Failures that are not the envelope's pass through or say what could not be read")
    func otherFailures() {
        let status = statusFailure(500, body: #"{"status":500}"#)
        #expect(
            envelope.failure(in: makeOutcome(status: 500, error: status))?.kind == .unacceptableStatusCode)
        let success = #"{"code":0}"#
        #expect(
            envelope.failure(
                in: makeOutcome(status: 500, body: success, error: statusFailure(500, body: success)))?
                .kind == .unacceptableStatusCode)
        #expect(envelope.failure(in: makeOutcome(body: #"{"data":1}"#))?.kind == .keyPathNotFound)
        #expect(envelope.failure(in: makeOutcome(body: "oops"))?.kind == .invalidJSON)
        #expect(envelope.failure(in: makeOutcome(body: #"{"code":[0]}"#))?.kind == .decodingFailed)
        #expect(envelope.failure(in: makeOutcome(body: ""))?.kind == .emptyResponse)
        #expect(
            envelope.failure(in: makeOutcome(status: nil, error: .cancelled(request: nil)))?.isCancelled
                == true)
    }

    @Test("An envelope can be described by a JSONErrorable type")
    func fromErrorable() {
        let weather = WeatherError.envelope
        #expect(
            weather == Envelope(codePath: "data.code", messagePath: "data.message", successCodes: ["200"]))
        let outcome = makeOutcome(body: #"{"data":{"code":"404","message":"City not found"}}"#)
        #expect(weather.failure(in: outcome)?.businessMessage == "City not found")
    }

    @Test("The message is read at \"message\" by default, as JSONErrorable reads it; \"msg\" when asked")
    func defaultMessagePath() throws {
        struct PlainError: JSONErrorable {
            static let envelope = Envelope(successCodes: ["0"])
            let code: String?
            let message: String?
        }
        #expect(Envelope.standard.messagePath == "message")
        #expect(Envelope(successCodes: ["0"]) == .standard)
        #expect(PlainError.envelope == .standard)
        let message = makeOutcome(body: #"{"code":7,"message":"Try later","msg":"other"}"#)
        #expect(Envelope.standard.failure(in: message)?.businessMessage == "Try later")
        // A {code, msg, data} API names its message path; the default no longer reads "msg".
        let msg = makeOutcome(body: #"{"code":7,"msg":"Try later"}"#)
        let unnamed = try #require(Envelope.standard.failure(in: msg))
        #expect(unnamed.kind == .business)
        #expect(unnamed.businessCode == "7")
        #expect(unnamed.businessMessage == nil)
        let named = Envelope(messagePath: "msg", successCodes: ["0"])
        #expect(named.failure(in: msg)?.businessMessage == "Try later")
    }
}
