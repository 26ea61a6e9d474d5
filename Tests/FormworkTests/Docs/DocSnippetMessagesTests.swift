import Formwork
import Foundation
import Testing

// Messages.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Messages")
    struct MessagesTests {
        @MainActor
        final class WeatherPage: Requestable {
            let alert = Headless.Alert()
            let savedAlert = Headless.Alert(message: "Weather updated")
            var lastCode: String?
            var session = Session.default  // added for the test

            @discardableResult
            func refresh() -> DataRequest {
                request(WeatherForm(city: "shanghai"), session: session)
                    .warn(
                        WeatherError.self, with: alert,
                        onSuccess: { success in
                            // handle special codes by listing them in successCodes
                            self.lastCode = success.code
                        }
                    )
                    .inform(WeatherError.self, with: savedAlert)
            }
        }

        struct PaymentForm: RequestFormable {
            var url: String { "https://api.example.com/pay" }
            var method: HTTPMethod { .post }
        }

        @MainActor
        final class CheckoutScreen: Requestable {
            let alert = Headless.Alert()
            var session = Session.default  // added for the test

            @discardableResult
            func pay() -> DataRequest {
                request(PaymentForm(), session: session)
                    .responseEnvelope(of: EmptyBody.self, envelope: .api) { response in
                        guard let error = response.error, error.kind == .business else { return }
                        if error.businessCode == "1001" {
                            self.alert.show(error: error.businessMessage ?? error.userMessage)
                        }
                    }
            }
        }

        @Test("Messages: warn, inform, business errors and replaced words")
        @MainActor
        func messages() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/weather", .json(weatherJSON))
            stubs.stub(
                .post, "https://api.example.com/pay",
                .json(#"{"code": 1001, "msg": "Insufficient balance"}"#))
            let session = Session(stubs: stubs)

            let page = WeatherPage()
            page.session = session
            await page.refresh().settled()
            #expect(page.lastCode == "200")
            #expect(page.alert.presentedMessages.isEmpty)
            #expect(page.savedAlert.presentedMessages == ["Weather updated"])

            let missing = StubRegistry()
            missing.stub(
                .get, "https://api.example.com/weather",
                .json(#"{"data": {"code": 404, "message": "City not found"}}"#))
            page.session = Session(stubs: missing)
            await page.refresh().settled()
            #expect(page.alert.presentedMessages == ["City not found"])
            #expect(page.savedAlert.presentedMessages == ["Weather updated"])

            let checkout = CheckoutScreen()
            checkout.session = session
            await checkout.pay().settled()
            #expect(checkout.alert.presentedMessages == ["Insufficient balance"])

            var words = MessageCatalog.english
            words[.timedOut] = "请求超时"
            words[.offline] = "网络连接已断开"
            words[.serverError] = "服务器开小差了，请稍后再试"
            let timeout = NetworkError(
                .transport, failureReason: "timed out", underlyingError: URLError(.timedOut))
            #expect(timeout.userMessage(using: words).hasPrefix("请求超时"))
            words.showsCodes = true
            #expect(timeout.userMessage(using: words) == "请求超时 (-1001)")
        }
    }
}

// "What a failure is about".
extension DocSnippetTests.MessagesTests {
    static func logLine(for error: NetworkError) -> String {
        switch error.kind {
        case .invalidHeader:
            "header \(error.headerName ?? ""): \(error.reason?.name ?? "")"
        case .parameterEncodingFailed:
            "parameter \(error.parameterKeyPath ?? ""): \(error.reason?.name ?? "")"
        case .fileOperationFailed, .multipartEncodingFailed:
            "file \(error.fileURL?.lastPathComponent ?? ""): \(error.reason?.name ?? "")"
        case .business:
            "code \(error.businessCode ?? ""): \(error.businessMessage ?? "")"
        default:
            error.description
        }
    }

    struct TokenForm: RequestFormable {
        var url: String { "https://api.example.com/profile" }
        var headers: HTTPHeaders { ["X-Token": "abc\n"] }
    }

    struct SearchForm: RequestFormable {
        var url: String { "https://api.example.com/search" }
        var parameters: Parameters { ["since": Data()] }
    }

    struct AvatarUpload: UploadMultipartFormable {
        let file: URL
        var url: String { "https://api.example.com/avatar" }
        var multipartFormData: MultipartFormData {
            var form = MultipartFormData()
            form.append(file, name: "avatar")
            return form
        }
    }

    @Test("Messages: one error type says what a failure is about")
    @MainActor
    func whatAFailureIsAbout() async throws {
        let session = Session(stubs: StubRegistry())
        let caller = DocSnippetTests.Caller()
        let header = await caller.request(TokenForm(), session: session).response().error
        #expect(header.map(Self.logLine) == "header X-Token: invalidHeaderValueCharacter")
        let parameter = await caller.request(SearchForm(), session: session).response().error
        #expect(parameter.map(Self.logLine) == "parameter since: unsupportedValue")
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-avatar.png")
        let file = await caller.upload(AvatarUpload(file: missing), session: session).response().error
        #expect(file.map(Self.logLine) == "file no-such-avatar.png: fileNotFound")
        let business = NetworkError(.business, failureReason: "…", details: .init(businessCode: "1001"))
        #expect(Self.logLine(for: business) == "code 1001: ")
    }
}
