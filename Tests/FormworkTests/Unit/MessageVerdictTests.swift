import Foundation
import Testing

@testable import Formwork

@Suite("Classifying an outcome for warn and inform")
struct MessageVerdictTests {
    private let plain: MessageCatalog = {
        var catalog = MessageCatalog.english
        catalog.showsCodes = false
        return catalog
    }()

    /// What `.warn` would do: "success CODE", "show MESSAGE" or "silent".
    private func verdict<E: JSONErrorable>(
        _ outcome: RequestOutcome, _ type: E.Type = WeatherError.self, bodyInMemory: Bool = true
    ) -> String {
        switch MessageVerdict<E>(outcome, bodyInMemory: bodyInMemory, catalog: plain) {
        case .silent: "silent"
        case .success(let value): "success \(value.code ?? "nil")"
        case .failure(let error): "show \(error.message ?? "nil") (\(Swift.type(of: error)))"
        }
    }

    private func weather(_ code: String, _ message: String = "msg") -> String {
        #"{"data":{"code":\#(code),"message":"\#(message)"}}"#
    }

    @Test("A success code is a success, as a string or a number")
    func successCodes() {
        #expect(verdict(makeOutcome(body: weather(#""200""#))) == "success 200")
        #expect(verdict(makeOutcome(body: weather("200"))) == "success 200")
        #expect(verdict(makeOutcome(body: weather("200.0"))) == "success 200")
        #expect(verdict(makeOutcome(body: weather("2e2"))) == "success 200")
        #expect(verdict(makeOutcome(body: #"{"code":0,"msg":"ok"}"#), APIError.self) == "success 0")
    }

    @Test("Any other code shows the server's message, with 2xx and with an error status")
    func businessCodes() {
        #expect(
            verdict(makeOutcome(body: weather(#""404""#, "City not found")))
                == "show City not found (WeatherError)")
        #expect(
            verdict(makeOutcome(body: weather("1001", "Low balance"))) == "show Low balance (WeatherError)")
        let failed = makeOutcome(
            status: 500, body: weather("5001", "DB down"),
            error: statusFailure(500, body: weather("5001", "DB down")))
        #expect(verdict(failed) == "show DB down (WeatherError)")
    }

    @Test("A failure code without a message shows a fallback, never nothing")
    func codeWithoutMessage() {
        #expect(
            verdict(makeOutcome(body: #"{"data":{"code":"7"}}"#))
                == "show \(plain.businessFailure) (WeatherError)")
        let body = #"{"data":{"code":"7","message":""}}"#
        let failed = makeOutcome(status: 503, body: body, error: statusFailure(503, body: body))
        #expect(verdict(failed) == "show \(plain.serverError) (WeatherError)")
    }

    @Test("An error status without a readable code shows the status message")
    func statusWithoutCode() {
        for (status, body) in [(500, #"{"status":500}"#), (404, "not json"), (503, "")] {
            let outcome = makeOutcome(status: status, body: body, error: statusFailure(status, body: body))
            #expect(verdict(outcome) == "show \(plain.message(forStatusCode: status)) (String)")
        }
        // A success code on an error status is still a failure: the status wins.
        let body = weather(#""200""#)
        #expect(
            verdict(makeOutcome(status: 500, body: body, error: statusFailure(500, body: body)))
                == "show \(plain.serverError) (String)")
        // A non-2xx that validation let through is judged the same way.
        #expect(verdict(makeOutcome(status: 502, body: "{}")) == "show \(plain.serverError) (String)")
    }

    @Test(
        "A 2xx body without a readable code says the response could not be read",
        arguments: [
            #"{"data": not json"#, "<html></html>", "[1,2,3]", #"{"data":{}}"#, #"{"data":{"code":null}}"#,
            #"{"data":{"code":{"x":1}}}"#, #"{"data":{"code":true}}"#, "",
        ])
    func unreadable(body: String) {
        #expect(verdict(makeOutcome(body: body)) == "show \(plain.unreadableResponse) (String)")
    }

    @Test("A 2xx without a body in memory is a success without a code: 204, HEAD, downloads")
    func bodyless() {
        #expect(verdict(makeOutcome(status: 204, body: "")) == "success nil")
        #expect(verdict(makeOutcome(body: "", method: "HEAD")) == "success nil")
        #expect(verdict(makeOutcome(body: "", headers: ["Content-Length": "0"])) == "success nil")
        #expect(verdict(makeOutcome(body: nil), bodyInMemory: false) == "success nil")
    }

    @Test("Transport failures and unsent requests show the short message; a cancel shows nothing")
    func nonHTTPFailures() {
        let offline = NetworkError.transport(
            URLError(.notConnectedToInternet), request: nil, response: nil, data: nil)
        #expect(verdict(makeOutcome(status: nil, error: offline)) == "show \(plain.offline) (String)")
        let timeout = NetworkError.transport(URLError(.timedOut), request: nil, response: nil, data: nil)
        #expect(verdict(makeOutcome(status: nil, error: timeout)) == "show \(plain.timedOut) (String)")
        let invalid = NetworkError(.invalidURL, failureReason: "bad")
        #expect(verdict(makeOutcome(status: nil, error: invalid)) == "show \(plain.invalidRequest) (String)")
        #expect(verdict(makeOutcome(status: nil, error: .cancelled(request: nil))) == "silent")
        #expect(
            verdict(makeOutcome(status: 200, body: weather("200"), error: .cancelled(request: nil)))
                == "silent")
    }
}

@Suite("Reading codes and messages as text")
struct JSONScalarTests {
    @Test(
        "Numbers read as canonical decimal text, strings as they are",
        arguments: [
            (#"{"c":200}"#, "200"), (#"{"c":"200"}"#, "200"), (#"{"c":200.0}"#, "200"), (#"{"c":-3}"#, "-3"),
            (#"{"c":-0}"#, "0"), (#"{"c":1.5}"#, "1.5"), (#"{"c":"a\u0062c"}"#, "abc"),
            (#"{"c":12345678901234567890}"#, "12345678901234567890"), (#"{"c":1E3}"#, "1000"),
        ])
    func text(json: String, expected: String) {
        #expect(JSONScalar.read("c", in: Data(json.utf8)) == .text(expected))
    }

    @Test("Missing, null, non-scalar and malformed values are told apart")
    func failures() {
        #expect(JSONScalar.read("c", in: Data(#"{"d":1}"#.utf8)).text == nil)
        if case .absent = JSONScalar.read("c", in: Data(#"{"c":null}"#.utf8)) {} else { Issue.record("null") }
        #expect(JSONScalar.read("c", in: Data(#"{"c":[1]}"#.utf8)) == .notScalar)
        #expect(JSONScalar.read("c", in: Data(#"{"c":false}"#.utf8)) == .notScalar)
        if case .malformed = JSONScalar.read("c", in: Data("{".utf8)) {} else { Issue.record("malformed") }
        if case .absent = JSONScalar.read("", in: Data("{}".utf8)) {} else { Issue.record("empty path") }
    }
}
