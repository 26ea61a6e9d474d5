import Formwork
import Foundation
import Testing

// Forms.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Forms")
    struct FormsTests {
        struct ArticleForm: RequestFormable {
            let id: Int
            var url: String { "articles/\(id)" }  // https://api.example.com/v1/articles/7
        }

        struct StatusForm: RequestFormable {
            var url: String { "/status" }  // https://api.example.com/status: from the host
        }

        struct Article: Decodable, Sendable {
            let title: String
        }

        @Test("Base URLs and one-off requests")
        func baseURLs() async throws {
            let stubs = StubRegistry()
            stubs.stub(nil, "https://api.example.com/v1/articles/7", .json(#"{"title": "Seven"}"#))
            stubs.stub(nil, "https://api.example.com/v1/articles", .json("{}"))
            stubs.stub(nil, "https://api.example.com/status", .json("{}"))
            var configuration = Session.Configuration()
            configuration.baseURL = "https://api.example.com/v1/"
            let api = Session(stubs: stubs, configuration: configuration)  // stubs added for the test
            _ = try await api.request(ArticleForm(id: 7)).data()
            #expect(stubs.requests.last?.url?.absoluteString == "https://api.example.com/v1/articles/7")
            _ = try await api.request(StatusForm()).data()
            #expect(stubs.requests.last?.url?.absoluteString == "https://api.example.com/status")

            let article = try await api.request("articles/7").decode(Article.self)
            #expect(article.title == "Seven")
            _ = try await api.request(
                "articles", method: .post, parameters: ["title": "Hello"], encoding: .json
            )
            .data()
            let posted = try #require(stubs.requests.last)
            #expect(posted.httpMethod == "POST")
            #expect(posted.url?.absoluteString == "https://api.example.com/v1/articles")
        }

        struct CreateArticleForm: RequestFormable {
            let title: String
            var url: String { "https://api.example.com/articles" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["title": title] }  // a form body: title=...
            var idleTimeout: TimeInterval? { 20 }
        }

        struct SearchForm: RequestFormable {
            var url: String { "https://api.example.com/search" }
            var parameters: Parameters {
                ["q": "swift concurrency", "tags": ["ios", "linux"], "exact": true]
            }
            var encoding: ParameterEncoding { .url(arrayEncoding: .noBrackets, boolEncoding: .numeric) }
        }

        struct NewArticle: Codable, Sendable, Equatable {  // Codable (not just Encodable) to check the body
            let title: String
            let tags: [String]
        }

        struct PublishForm: RequestFormable {
            let article: NewArticle
            var url: String { "https://api.example.com/articles" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["draft": false] }  // → ?draft=false
            var encoding: ParameterEncoding { .json(article) }  // → the article as the JSON body
        }

        struct InvoiceForm: RequestFormable {
            let xml: Data
            var url: String { "https://api.example.com/invoices" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["v": 2] }  // → ?v=2
            var body: RequestBody? { RequestBody(xml, contentType: "application/xml") }
        }

        struct AvatarForm: UploadMultipartFormable {
            let userID: Int
            let photo: URL
            var url: String { "https://api.example.com/avatar" }
            var multipartFormData: MultipartFormData {
                var form = MultipartFormData()
                form.append(Data("\(userID)".utf8), name: "userID")
                form.append(photo, name: "avatar")  // file name and MIME type from the URL
                form.append(
                    Data("{}".utf8), name: "meta", fileName: "meta.json", mimeType: "application/json")
                return form
            }
        }

        /// What a form's encoding makes of a bare request for its URL and method.
        static func encoded(_ form: some RequestFormable) throws -> URLRequest {
            var request = URLRequest(url: URL(string: form.url)!)
            request.httpMethod = form.method.rawValue
            return try form.encoding.encode(request, with: form.parameters)
        }

        @Test("Forms: queries, bodies, headers and multipart parts are what the article says")
        func forms() async throws {
            let stubs = StubRegistry()
            stubs.stub(nil, "https://api.example.com/articles", .json("{}"))
            stubs.stub(nil, "https://api.example.com/search", .json("{}"))
            stubs.stub(nil, "https://api.example.com/me", .json("{}"))
            stubs.stub(.post, "https://api.example.com/avatar", .json("{}"))
            stubs.stub(.post, "https://api.example.com/invoices", .json("{}"))
            let session = Session(stubs: stubs)
            let caller = Caller()

            _ = await caller.request(ArticlesForm(page: 2), session: session).response()
            #expect(stubs.requests.last?.url?.query == "page=2&size=20")

            let create = try Self.encoded(CreateArticleForm(title: "Hello world"))
            #expect(create.httpBody == Data("title=Hello%20world".utf8))
            #expect(
                create.value(forHTTPHeaderField: "Content-Type")
                    == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(CreateArticleForm(title: "x").idleTimeout == 20)

            _ = await caller.request(SearchForm(), session: session).response()
            #expect(stubs.requests.last?.url?.query == "exact=1&q=swift%20concurrency&tags=ios&tags=linux")

            let article = NewArticle(title: "Hi", tags: ["swift"])
            let publish = try Self.encoded(PublishForm(article: article))
            #expect(publish.url?.query == "draft=false")
            #expect(publish.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(
                try JSONDecoder().decode(NewArticle.self, from: try #require(publish.httpBody)) == article)

            let xml = Data("<invoice/>".utf8)
            _ = await caller.request(InvoiceForm(xml: xml), session: session).response()
            let invoice = try #require(stubs.requests.last)
            #expect(invoice.url?.query == "v=2")
            #expect(invoice.value(forHTTPHeaderField: "Content-Type") == "application/xml")

            _ = await caller.request(ProfileForm(token: "t0ken"), session: session).response()
            let sent = try #require(stubs.requests.last)
            #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
            #expect(sent.value(forHTTPHeaderField: "Accept") == "application/json")
            #expect(sent.value(forHTTPHeaderField: "X-Client") == "ios")
            #expect(!ProfileForm(token: "t0ken").headers.description.contains("t0ken"))

            let folder = try scratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let photo = folder.appendingPathComponent("photo.jpg")
            try Data(repeating: 0xFF, count: 1_000).write(to: photo)
            let avatar = AvatarForm(userID: 42, photo: photo)
            #expect(avatar.multipartFormData.contentType.hasPrefix("multipart/form-data; boundary="))
            #expect(avatar.method == .post)
            let reply = await caller.upload(avatar, session: session).response()
            #expect(reply.error == nil)
            let uploaded = try #require(stubs.requests.last)
            #expect(uploaded.url?.path == "/avatar")
            #expect(
                uploaded.value(forHTTPHeaderField: "Content-Type")?
                    .hasPrefix("multipart/form-data; boundary=") == true)
        }

        @Test("Forms: a header with CR or LF fails the request before anything is sent")
        func invalidHeader() async {
            struct InjectingForm: RequestFormable {
                var url: String { "https://api.example.com/me" }
                var headers: HTTPHeaders { ["X-Note": "a\r\nX-Admin: 1"] }
            }
            let stubs = StubRegistry()
            let response = await Caller().request(InjectingForm(), session: Session(stubs: stubs)).response()
            #expect(response.error?.kind == .invalidHeader)
            #expect(stubs.requests.isEmpty)
        }
    }
}
