import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Sending forms to the demo server")
struct SendingTests {
    let client = Client()

    @Test("A GET sends its parameters as a sorted, percent-encoded query")
    func getWithParameters() async throws {
        let form = TestForm(
            url: try await DemoServer.url("/echo"),
            parameters: ["city": "上海 east", "page": 2, "tags": ["a", "b"], "flag": true])
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.queryItems["city"] == ["上海 east"])
        #expect(echo.queryItems["page"] == ["2"])
        #expect(echo.queryItems["tags[]"] == ["a", "b"])
        #expect(echo.queryItems["flag"] == ["true"])
        #expect(echo.query.hasPrefix("city="))
        #expect(echo.bodyLength == 0)
    }

    @Test("A POST with the default encoding sends a form body")
    func postFormBody() async throws {
        let form = TestForm(
            url: try await DemoServer.url("/echo"), method: .post,
            parameters: ["name": "Ada & Bob", "age": 36])
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.contentType?.hasPrefix("application/x-www-form-urlencoded") == true)
        #expect(echo.form?["name"] == ["Ada & Bob"])
        #expect(echo.form?["age"] == ["36"])
        #expect(echo.query.isEmpty)
    }

    @Test("JSON encoding sends the parameters as a JSON body")
    func jsonBody() async throws {
        let form = TestForm(
            url: try await DemoServer.url("/echo"), method: .put,
            parameters: ["user": ["name": "Ada", "langs": ["swift", "c"]] as Parameters, "active": false],
            encoding: .json)
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.method == "PUT")
        #expect(echo.contentType == "application/json")
        #expect(echo.json?["active"] == .bool(false))
        #expect(echo.json?["user"]?["name"] == .string("Ada"))
        #expect(echo.json?["user"]?["langs"] == .array([.string("swift"), .string("c")]))
    }

    @Test("An Encodable body is sent as JSON, and the parameters go to the query")
    func encodableBody() async throws {
        struct NewArticle: Encodable, Sendable {
            let title: String
            let tags: [String]
        }
        let form = TestForm(
            url: try await DemoServer.url("/echo"), method: .post, parameters: ["draft": true],
            encoding: .json(NewArticle(title: "Formwork", tags: ["swift"])))
        let echo = try await client.request(form).decode(Echo.self)
        #expect(echo.json?["title"] == .string("Formwork"))
        #expect(echo.json?["tags"] == .array([.string("swift")]))
        #expect(echo.queryItems["draft"] == ["true"])
    }

    @Test("Form headers are sent, merged over the session's defaults (case-insensitively)")
    func headers() async throws {
        let session = Session { $0.headers = ["X-Client": "tests", "X-Token": "session"] }
        let form = TestForm(
            url: try await DemoServer.url("/echo"),
            headers: ["x-token": "form", "Accept": "application/json"])
        let echo = try await client.request(form, session: session).decode(Echo.self)
        #expect(echo.headers["x-client"] == "tests")
        #expect(echo.headers["x-token"] == "form")
        #expect(echo.headers["accept"] == "application/json")
    }

    @Test("The library defaults: GET, no parameters, no extra headers, the session's timeout")
    func defaults() async throws {
        let request = client.request(DefaultsForm(url: try await DemoServer.url("/echo")))
        let echo = try await request.decode(Echo.self)
        #expect(echo.method == "GET")
        #expect(echo.query.isEmpty)
        #expect(request.request?.timeoutInterval == Session.default.configuration.timeouts.idle)
    }

    @Test("HEAD and every other method reach the server as written")
    func methods() async throws {
        for method in [HTTPMethod.get, .post, .put, .patch, .delete, .options] {
            let echo = try await client.request(
                TestForm(url: try await DemoServer.url("/echo"), method: method)
            )
            .decode(Echo.self)
            #expect(echo.method == method.rawValue)
        }
        let head = client.request(TestForm(url: try await DemoServer.url("/empty?status=200"), method: .head))
        #expect(try await head.decode(EmptyBody.self) == EmptyBody())
        #expect(head.response?.statusCode == 200)
    }
}

@Suite("Decoding responses from the demo server")
struct DecodingTests {
    let client = Client()

    @Test("responseDecodable decodes the weather at \"data\" on the main actor")
    func weatherHandler() async throws {
        let form = TestForm(url: try await DemoServer.url("/weather"), parameters: ["city": "shanghai"])
        let response = await client.request(form).handled(Weather.self, atKeyPath: "data")
        let weather = try #require(response.value)
        #expect(weather.city == "shanghai")
        #expect(weather.code == "200")
        #expect(weather.forecast.count == 3)
        #expect(response.response?.statusCode == 200)
        #expect(response.data?.isEmpty == false)
        #expect(response.request?.url?.query == "city=shanghai")
    }

    @Test("send returns a typed form's response")
    func sendTyped() async throws {
        let weather = try await client.send(WeatherForm(base: try await DemoServer.baseURL(), city: "paris"))
        #expect(weather.city == "paris")
        #expect(weather.temperature == 23.5)
    }

    @Test("A list at \"data.list\" decodes in the handler and in the async API")
    func list() async throws {
        let form = TestForm(url: try await DemoServer.url("/articles"), parameters: ["page": 2, "size": 5])
        let request = client.request(form)
        let articles = try await request.decode([Article].self, atKeyPath: "data.list")
        #expect(articles.count == 5)
        #expect(Set(articles.map(\.id)).count == 5)
        let handled = await request.handled([Article].self, atKeyPath: "data.list")
        #expect(handled.value == articles)
    }

    @Test("A string body and the raw data arrive unchanged")
    func textAndData() async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/html")))
        let text = try await request.string()
        #expect(text.contains("<html"))
        #expect(try await request.data() == Data(text.utf8))
    }

    @Test(
        "Empty bodies decode as EmptyBody for 204, 205, HEAD and a 200 with Content-Length 0",
        arguments: [
            ("/empty?status=204", HTTPMethod.get), ("/empty?status=205", .get), ("/empty?status=200", .get),
            ("/empty?status=200", .head),
        ])
    func emptyBodies(path: String, method: HTTPMethod) async throws {
        let request = client.request(TestForm(url: try await DemoServer.url(path), method: method))
        #expect(try await request.decode(EmptyBody.self) == EmptyBody())
        #expect(try await request.decode(Article?.self) == nil)
        #expect(try await request.data().isEmpty)
    }

    @Test("An empty 204 fails clearly for a type that needs a value")
    func emptyRefused() async throws {
        let request = client.request(TestForm(url: try await DemoServer.url("/empty?status=204")))
        await #expect(throws: NetworkError.self) { try await request.decode(Article.self) }
        let response = await request.handled(Article.self)
        #expect(response.error?.kind == .emptyResponse)
    }

    @Test("The response arrives whole (a repeated field joined, type, length); one object for all readers")
    func responseHead() async throws {
        let url = try await DemoServer.url(
            "/headers/set?X-Twice=one&X-Twice=two&Content-Type=text/plain;%20charset=utf-8")
        let request = client.request(TestForm(url: url))
        let response = await request.response()
        let http = try #require(response.response)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "X-TWICE") == "one, two")
        #expect(http.mimeType == "text/plain")
        #expect(http.textEncodingName == "utf-8")
        #expect(http.expectedContentLength == Int64(response.data?.count ?? -1))
        // The request and its response hand out the same object (made once, if it is made at all).
        #expect(request.response === http)
    }

    @Test("One request awaited by three tasks at once: each gets the body, and it is sent once")
    func awaitedByThreeTasks() async throws {
        let key = "awaited-\(UUID().uuidString)"
        let request = client.request(TestForm(url: try await DemoServer.url("/coalesce/held?key=\(key)")))
        async let first = request.data()
        async let second = request.data()
        async let text = request.string()
        // All three wait before the server answers: one as the request's waiting task, the
        // others beside it.
        await eventually("three tasks await the request") {
            request.core.state.withLock { $0.waitingTask != nil && $0.otherWaits.count == 2 }
        }
        _ = try await client.request(TestForm(url: try await DemoServer.url("/coalesce/release?key=\(key)")))
            .data()
        let (one, two, three) = try await (first, second, text)
        let hit = try JSONDecoder().decode(HeldAnswer.self, from: one)
        #expect(hit.key == key)
        #expect(hit.hit == 1)
        #expect(two == one)
        #expect(three == String(decoding: one, as: UTF8.self))
    }

    /// What `/coalesce/held` answers.
    private struct HeldAnswer: Decodable {
        let key: String
        let hit: Int
    }
}
