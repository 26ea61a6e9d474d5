import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Bad input and failures end in a clear NetworkError")
struct FailureTests {
    let client = Client()
    let plain: MessageCatalog = {
        var catalog = MessageCatalog.english
        catalog.showsCodes = false
        return catalog
    }()

    @Test(
        "Invalid URL strings fail with invalidURL and never start a task",
        arguments: [
            "", "   ", "not a url", "ftp://127.0.0.1/file", "http://", "http//127.0.0.1", "127.0.0.1:80/x",
            "http://[::1", "mailto:someone@example.com", "://nothing",
        ])
    func invalidURL(url: String) async {
        let request = client.request(TestForm(url: url))
        await #expect {
            try await request.data()
        } throws: { error in
            (error as? NetworkError)?.kind == .invalidURL
        }
        let handled = await request.handledString()
        #expect(handled.error?.kind == .invalidURL)
        #expect(handled.error?.userMessage(using: plain) == plain.invalidRequest)
        #expect(request.core.task == nil)
        #expect(request.isFinished)
    }

    @Test(
        "CR, LF and NUL in header names or values are refused before anything is sent",
        arguments: [
            HTTPHeaders(["X-Evil": "a\r\nInjected: yes"]), HTTPHeaders(["X-Evil": "line\nbreak"]),
            HTTPHeaders(["X-Evil": "carriage\rreturn"]), HTTPHeaders(["X-Evil\r\nInjected": "yes"]),
            HTTPHeaders(["X-Ev\nil": "v"]), HTTPHeaders(["X-Nul": "a\u{0}b"]), HTTPHeaders(["Bad Name": "v"]),
        ])
    func headerInjection(headers: HTTPHeaders) async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/echo"), headers: headers))
        let response = await request.handledString()
        let error = try #require(response.error)
        #expect(error.kind == .invalidHeader)
        let header = try #require(headers.first)
        #expect(error.headerName == header.name)  // the error names the header...
        #expect([.invalidHeaderNameCharacter, .invalidHeaderValueCharacter].contains(error.reason))
        #expect(error.invalidCharacter != nil)
        if header.value.count > 1 {  // ...and never holds its value ("v" is in any text)
            #expect(!error.debugDescription.contains(header.value))
        }
        #expect(request.core.task == nil)
        #expect(request.response == nil)
    }

    @Test("Session default headers are validated too")
    func sessionHeaderInjection() async throws {
        let session = Session { $0.headers = ["X-Bad": "a\r\nb"] }
        let response = await client.request(
            TestForm(url: try await DemoServer.url("/echo")), session: session
        )
        .handledString()
        #expect(response.error?.kind == .invalidHeader)
    }

    @Test("Unsupported parameter values fail with parameterEncodingFailed")
    func badParameters() async throws {
        struct Opaque: Sendable {}
        let request = client.request(
            TestForm(url: try await DemoServer.url("/echo"), parameters: ["x": Opaque()]))
        let response = await request.handledString()
        let error = try #require(response.error)
        #expect(error.kind == .parameterEncodingFailed)
        #expect(error.reason == .unsupportedValue)  // says what failed...
        #expect(error.parameterKeyPath == "x")  // ...for which parameter...
        #expect(error.valueType == "Opaque")  // ...of which type
        #expect(error.request?.url?.path == "/echo")
        #expect(error.userMessage(using: plain) == plain.invalidRequest)
        #expect(request.core.task == nil)
    }

    @Test("A non-finite number in a JSON body fails naming the parameter, before anything is sent")
    func nonFiniteJSONParameter() async throws {
        let request = client.request(
            TestForm(
                url: try await DemoServer.url("/echo"), method: .post,
                parameters: ["stats": ["ratio": Double.nan]],
                encoding: .json))
        let error = try #require(await request.handledString().error)
        #expect(error.kind == .parameterEncodingFailed)
        #expect(error.reason == .invalidValue)
        #expect(error.parameterKeyPath == "stats[ratio]")
        #expect(request.core.task == nil)
    }

    @Test("An invalid header names the header, the rule and the character, through any catch")
    func invalidHeaderDetails() async throws {
        let url = try await DemoServer.url("/echo")
        do {
            _ = try await client.request(TestForm(url: url, headers: ["X-Token": "abc\n"])).string()
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .invalidHeader)
            #expect(error.headerName == "X-Token")
            #expect(error.reason == .invalidHeaderValueCharacter)
            #expect(error.invalidCharacter == "\n")
            #expect(error.underlyingError == nil)
            #expect(error.description.hasPrefix("NetworkError.invalidHeader(invalidHeaderValueCharacter): "))
        }
    }

    @Test(
        "A non-JSON body is an invalidJSON error with the body kept", arguments: ["/html", "/json/invalid"])
    func notJSON(path: String) async throws {
        let response = await client.request(TestForm(url: try await DemoServer.url(path))).handled(
            Weather.self)
        #expect(response.error?.kind == .invalidJSON)
        #expect(response.data?.isEmpty == false)
        #expect(response.error?.userMessage(using: plain) == plain.unreadableResponse)
    }

    @Test("A missing key path is keyPathNotFound, naming it")
    func missingKeyPath() async throws {
        let form = TestForm(url: try await DemoServer.url("/articles"))
        let response = await client.request(form).handled([Article].self, atKeyPath: "data.items")
        #expect(response.error?.kind == .keyPathNotFound)
        #expect(response.error?.failureReason.contains("data.items") == true)
    }

    @Test("A body of the wrong shape is decodingFailed")
    func wrongShape() async throws {
        let form = TestForm(url: try await DemoServer.url("/articles"))
        await #expect {
            try await client.request(form).decode([Weather].self, atKeyPath: "data.list")
        } throws: { ($0 as? NetworkError)?.kind == .decodingFailed }
    }

    @Test(
        "4xx and 5xx fail validation, keep the response and body, and read as the right message",
        arguments: [
            (400, Words.badRequest), (401, .unauthorized), (403, .forbidden), (404, .notFound),
            (429, .tooManyRequests), (500, .serverError), (502, .serverError), (503, .serverError),
        ])
    func statusErrors(status: Int, words: Words) async throws {
        let response = await client.request(TestForm(url: try await DemoServer.url("/status/\(status)")))
            .handled(EmptyBody.self)
        let error = try #require(response.error)
        #expect(error.kind == .unacceptableStatusCode)
        #expect(error.statusCode == status)
        #expect(error.response?.statusCode == status)
        #expect(error.data.map { String(decoding: $0, as: UTF8.self) }?.contains("\(status)") == true)
        #expect(error.userMessage(using: plain) == words.text(in: plain))
        var debug = plain
        debug.showsCodes = true
        #expect(error.userMessage(using: debug) == "\(words.text(in: plain)) (\(status))")
    }

    @Test("A business error sent with 500 keeps its envelope for the app to read")
    func businessErrorWith500() async throws {
        let request = client.request(
            TestForm(
                url: try await DemoServer.url("/business-error"), parameters: ["status": 500, "code": 5001]))
        let response = await request.handledString()
        #expect(response.error?.statusCode == 500)
        let envelope =
            try JSONSerialization.jsonObject(with: try #require(response.error?.data)) as? [String: Any]
        #expect(envelope?["code"] as? Int == 5001)
    }

    @Test("A plain-text 503 is readable once validation allows it")
    func plainTextError() async throws {
        let url = try await DemoServer.url("/text-error")
        let failed = await client.request(TestForm(url: url)).handledString()
        #expect(failed.error?.statusCode == 503)
        let text = try await client.request(TestForm(url: url)).validate(statusCode: 200..<600).string()
        #expect(text == "Service temporarily unavailable")
    }

    @Test("A session without default validation passes a 500 through; a custom validator can refuse a 200")
    func validationConfiguration() async throws {
        let lenient = Session { $0.acceptableStatusCodes = nil }
        let status = try await client.request(
            TestForm(url: try await DemoServer.url("/status/500")), session: lenient
        )
        .decode(JSONValue.self)
        #expect(status["status"] == .number(500))

        struct NotSunny: Error {}
        let refused = await client.request(TestForm(url: try await DemoServer.url("/weather?city=x")))
            .validate { _, _, data in
                if let data, !String(decoding: data, as: UTF8.self).contains("Rain") { throw NotSunny() }
            }
            .handled(Weather.self, atKeyPath: "data")
        #expect(refused.error?.kind == .validationFailed)
        #expect(refused.error?.underlyingError is NotSunny)
    }

    @Test("validate() checks the content type against Accept")
    func contentTypeValidation() async throws {
        let form = TestForm(url: try await DemoServer.url("/html"), headers: ["Accept": "application/json"])
        let response = await client.request(form).validate().handledString()
        #expect(response.error?.kind == .validationFailed)
        let ok = TestForm(
            url: try await DemoServer.url("/weather?city=x"), headers: ["Accept": "application/json"])
        #expect(await client.request(ok).validate().handledString().error == nil)
    }

    @Test("Nothing listening is a transport error: cannot connect")
    func cannotConnect() async throws {
        let port = try UnusedPort.find()
        let response = await client.request(TestForm(url: "http://127.0.0.1:\(port)/nothing")).handledString()
        let error = response.error
        #expect(error?.kind == .transport)
        #expect(error?.isNetworkFailure == true)
        #expect(error?.urlErrorCode == .cannotConnectToHost)
        #expect(error?.userMessage(using: plain) == plain.cannotConnect)
    }

    @Test("A form's timeout is an idle timeout: a stalled server times out with isTimeout")
    func timeout() async throws {
        let form = TestForm(url: try await DemoServer.url("/slow?ms=60000"), idleTimeout: 1)
        let started = Date()
        let response = await client.request(form).handledString()
        #expect(response.error?.isTimeout == true)
        #expect(response.error?.userMessage(using: plain) == plain.timedOut)
        #expect(Date().timeIntervalSince(started) < 30)  // far sooner than the server would answer
    }

    @Test("A sub-second timeout does not fire at once (corelibs truncates timeouts to whole seconds)")
    func subSecondTimeout() async throws {
        // Raw corelibs fails even an instant response at once with a sub-second timeout.
        let form = TestForm(url: try await DemoServer.url("/echo"), idleTimeout: 0.2)
        // Its own session: corelibs counts time queued behind the 6 connections per host toward
        // the timeout, and the shared session is busy with the rest of the suite.
        let request = client.request(form, session: Session())
        let started = Date()
        let response = await request.handledString()
        // An instant answer succeeds. On a machine loaded by the rest of the suite the answer may
        // take longer than 0.2 s, and then the request may time out, but only after 0.2 s of
        // silence: raw corelibs would fail it at once (its timeout truncated to 0).
        if let error = response.error {
            #expect(error.isTimeout)
            #expect(Date().timeIntervalSince(started) >= 0.2)
        } else {
            #expect(response.value?.isEmpty == false)
        }
        // The request keeps the form's 0.2 s; the built-in transport hands URLSession whole seconds
        // on every platform, and Formwork watches the 0.2 s itself.
        #expect(request.request?.timeoutInterval == 0.2)
        #expect(IdleTimeout.forURLSession(0.2) == 1)
    }

    @Test(
        "A timeout that is not a positive number is refused",
        arguments: [0, -1, .nan, .infinity] as [TimeInterval])
    func invalidTimeout(seconds: TimeInterval) async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/echo"), idleTimeout: seconds))
        let response = await request.handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(request.core.task == nil)
    }
}
