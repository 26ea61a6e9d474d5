import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// What Foundation does differently on Apple platforms and Linux, made the same by Formwork and
/// pinned here against the demo server (see the "Platform notes" article).
@Suite("Same behaviour on Apple platforms and Linux")
struct PlatformParityTests {
    let client = Client()

    private struct Count: Decodable, Sendable {
        let requests: Int
    }

    /// How many requests the demo server counted under `key` (uploads with `failKey`, faults).
    private func serverCount(_ key: String) async throws -> Int {
        try await Client().request(TestForm(url: try await DemoServer.url("/fault/count?key=\(key)")))
            .decode(Count.self).requests
    }

    // MARK: URL text

    @Test("URL text with spaces, |, brackets and non-ASCII reaches the server percent-encoded")
    func urlText() async throws {
        let base = try await DemoServer.url("")
        let form = TestForm(url: base + "/echo/a b/ü/[x]?q=x|y&r={1}&s=\"^\"", parameters: ["k": "v w"])
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.path == "/echo/a%20b/%C3%BC/%5Bx%5D")
        #expect(echo.query == "q=x%7Cy&r=%7B1%7D&s=%22%5E%22&k=v%20w")
        #expect(echo.queryItems["q"] == ["x|y"])
        #expect(echo.queryItems["r"] == ["{1}"])
        #expect(echo.queryItems["s"] == ["\"^\""])
        #expect(echo.queryItems["k"] == ["v w"])
    }

    @Test("Escapes already in the URL text arrive as they were, not encoded twice")
    func urlTextEscapes() async throws {
        let form = TestForm(url: try await DemoServer.url("/echo/a%20b?q=%7C%2F"))
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.path == "/echo/a%20b")
        #expect(echo.query == "q=%7C%2F")
    }

    @Test("A URL with a bad host or port fails as invalidURL before anything is sent")
    func invalidURLText() async throws {
        let base = try await DemoServer.url("")
        let port = try #require(URL(string: base)?.port)
        for text in ["http://127.0.0 .1:\(port)/echo", "http://127.0.0.1:\(port)0000/echo", "echo"] {
            let response = await client.request(TestForm(url: text)).handledString()
            #expect(response.error?.kind == .invalidURL, "\(text)")
            #expect(response.response == nil)
        }
    }

    // MARK: GET and HEAD carry no body

    @Test(
        "A GET or HEAD whose final request has a body fails with requestBuildFailed, and nothing is sent",
        arguments: [HTTPMethod.get, .head])
    func bodylessMethods(method: HTTPMethod) async throws {
        // From the form: JSON parameters on a GET.
        let jsonKey = UUID().uuidString
        let json = TestForm(
            url: try await DemoServer.url("/fault/burst?key=\(jsonKey)&failures=0"), method: method,
            parameters: ["a": 1], encoding: .json)
        let fromForm = await client.request(json).handledString()
        #expect(fromForm.error?.kind == .requestBuildFailed)
        #expect(fromForm.error?.failureReason.contains("cannot carry a body") == true)
        #expect(fromForm.response == nil)

        // From an adapter, after the form was built: the final request is what counts.
        let adapterKey = UUID().uuidString
        let plain = TestForm(
            url: try await DemoServer.url("/fault/burst?key=\(adapterKey)&failures=0"), method: method)
        let fromAdapter = await client.request(plain)
            .adapt(
                Adapter { request in
                    var request = request
                    request.httpBody = Data("body".utf8)
                    return request
                }
            )
            .handledString()
        #expect(fromAdapter.error?.kind == .requestBuildFailed)
        #expect(try await serverCount(jsonKey) == 0)
        #expect(try await serverCount(adapterKey) == 0)

        // The same form with URL encoding sends its parameters in the query, and is sent.
        var query = json
        query.encoding = .url
        let sent = await client.request(query).handledString()
        #expect(sent.error == nil)
        #expect(try await serverCount(jsonKey) == 1)
    }

    @Test("An upload form whose method is GET fails the same way")
    func uploadWithGET() async throws {
        struct GetUpload: UploadDataFormable {
            let url: String
            var method: HTTPMethod { .get }
            var data: Data { Data("x".utf8) }
        }
        let response = await client.upload(GetUpload(url: try await DemoServer.url("/echo"))).handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.response == nil)
    }

    // MARK: Upload streams

    private func payload() -> Data {
        Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    @Test("A stream upload retried after a 503 sends its whole body again, from a fresh stream")
    func streamRetry() async throws {
        let payload = payload()
        let key = UUID().uuidString
        let form = TestStreamUpload(
            url: try await DemoServer.url("/upload?failKey=\(key)&failures=1"), payload: payload)
        let report = try await client.upload(form)
            .retry(RetryPolicy(retryLimit: 1, baseDelay: 0.01, retryableMethods: [.post]))
            .decode(UploadReport.self)
        #expect(try await serverCount(key) == 2)
        #expect(form.made.count == 2)
        #expect(report.bytes == Int64(payload.count))
        #expect(report.md5 == MD5.hex(payload))
    }

    @Test("A stream upload reloaded after a lost connection sends its whole body again")
    @MainActor
    func streamReload() async throws {
        let payload = payload()
        let key = UUID().uuidString
        let form = TestStreamUpload(
            url: try await DemoServer.url("/upload?failKey=\(key)&failures=1&fail=cut"), payload: payload)
        let screen = Screen()
        let finished = EventCounter()
        let reports = Recorder<DataResponse<UploadReport>>()
        client.upload(form)
            .reload(on: screen)
            .responseDecodable(of: UploadReport.self) { response in
                reports.record(response)
                finished.increment()
            }
        await finished.wait(for: 1)
        let first = try #require(reports.values.first)
        #expect(first.error?.urlErrorCode == .networkConnectionLost)
        let prompt = try #require(screen.view.masks.first as? Headless.ReloadView)
        prompt.reload()
        await finished.wait(for: 2)
        let second = try #require(reports.values.last?.value)
        #expect(try await serverCount(key) == 2)
        #expect(form.made.count == 2)
        #expect(second.bytes == Int64(payload.count))
        #expect(second.md5 == MD5.hex(payload))
    }

    @Test(
        "A request with a body does not follow a 307 or 308: it is never sent on without its body",
        arguments: [307, 308])
    func bodyRedirect(status: Int) async throws {
        struct DataUpload: UploadDataFormable {
            let url: String
            let data: Data
        }
        let target = try await DemoServer.url("/upload?failKey=\(UUID().uuidString)&failures=0")
        let key = try #require(URLComponents(string: target)?.queryItems?.first?.value)
        let redirect = try await DemoServer.url("/redirect?status=\(status)&to=")
        let encodedTarget = try #require(
            target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = redirect + encodedTarget
        let stream = TestStreamUpload(url: url, payload: payload())
        let responses = [
            await client.upload(stream).handledString(),
            await client.upload(DataUpload(url: url, data: payload())).handledString(),
            await client.request(TestForm(url: url, method: .post, parameters: ["a": "b"])).handledString(),
        ]
        for response in responses {
            #expect(response.response?.statusCode == status)
            #expect(response.error?.kind == .unacceptableStatusCode)
            #expect(response.response?.value(forHTTPHeaderField: "Location") == target)
        }
        #expect(try await serverCount(key) == 0)
        // Without a body, the redirect is followed.
        let echo = try await DemoServer.url("/echo")
        let get = TestForm(
            url: redirect + (echo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect(try await client.request(get).decode(Echo.self).path == "/echo")
    }

    // MARK: Error meaning

    /// What Apple platforms report for both failures: `URLError(.networkConnectionLost)`.
    private var appleConnectionLost: NetworkError {
        .transport(URLError(.networkConnectionLost), request: nil, response: nil, data: nil)
    }

    @Test(
        "A body cut short and a close before any response read as Apple's -1005 connection lost",
        arguments: ["/files/100000?cutAt=5000", "/fault/close"])
    func connectionLost(path: String) async throws {
        let response = await client.request(TestForm(url: try await DemoServer.url(path)), session: Session())
            .handledString()
        let error = try #require(response.error)
        #expect(error.kind == appleConnectionLost.kind)
        #expect(error.urlErrorCode == .networkConnectionLost)
        #expect(error.isNetworkFailure)
        var codes = MessageCatalog.english
        codes.showsCodes = true
        #expect(error.userMessage(using: codes) == appleConnectionLost.userMessage(using: codes))
        codes.showsCodes = false
        #expect(error.userMessage(using: codes) == appleConnectionLost.userMessage(using: codes))
    }
}
