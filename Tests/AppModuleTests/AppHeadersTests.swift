import Formwork
import Foundation
import Testing

// The MBNetwork way to give every form of an app the same headers: one extension in the app.
extension Formable {
    var headers: HTTPHeaders { ["accessToken": "app-token-123"] }
}

private struct ProfileForm: RequestFormable {
    let url: String
}

private struct LoginForm: RequestFormable {
    let url: String
    var headers: HTTPHeaders { ["X-Login": "1"] }
}

@Suite("An app-module Formable extension")
struct AppHeadersTests {
    // Nothing listens on port 1: the request is built and sent, and fails to connect; what matters
    // here is the URLRequest the library built from the form.
    private let unreachable = "http://127.0.0.1:1/profile"

    @Test("sets headers for every form of the app that does not declare its own")
    func appWideHeaders() async {
        let request = Session.default.request(ProfileForm(url: unreachable))
        let response = await request.response()
        #expect(response.error?.urlErrorCode == .cannotConnectToHost)
        #expect(request.request?.value(forHTTPHeaderField: "accessToken") == "app-token-123")
    }

    @Test("is overridden by a form that declares its own headers")
    func formOverrides() async {
        let request = Session.default.request(LoginForm(url: unreachable))
        _ = await request.response()
        #expect(request.request?.value(forHTTPHeaderField: "X-Login") == "1")
        #expect(request.request?.value(forHTTPHeaderField: "accessToken") == nil)
    }
}
