import Foundation
import Testing

@testable import Formwork

@Suite("Final request check, credential headers and challenge answers")
struct CredentialSafetyTests {
    private func request(_ url: String, headers: [String: String]) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.allHTTPHeaderFields = headers
        return request
    }

    @Test(
        "The final check refuses CR, LF and NUL in names and values, naming the header without its value",
        arguments: [
            ("X-A\r\nX-Forged", "v"), ("X-B", "secret\r\nX-Forged: 1"), ("X-C", "se\0cret"), ("X-D\0", "v"),
            ("X-E", "secret\n"),
        ])
    func finalCheckRefuses(_ name: String, _ value: String) throws {
        let bad = request("http://example.com/", headers: ["Accept": "*/*", name: value])
        let error = try #require(throws: NetworkError.self) { try FinalRequestCheck.validate(bad) }
        #expect(error.kind == .invalidHeader)
        #expect(error.failureReason.contains(String(name.prefix(3))))
        #expect(!error.failureReason.contains("secret"))
        #expect(error.request?.allHTTPHeaderFields == ["Accept": "*/*"])
    }

    @Test("The final check accepts ordinary headers, tabs in values included")
    func finalCheckAccepts() throws {
        try FinalRequestCheck.validate(
            request("http://example.com/", headers: ["X-A": "a\tb", "Accept": "*/*"]))
    }

    @Test(
        "A redirect to another scheme, host or port drops every credential header; the same origin keeps them",
        arguments: [
            ("https://api.example.com/b", false), ("https://API.example.com:443/b", false),
            ("http://api.example.com/b", true), ("https://other.example.com/b", true),
            ("https://api.example.com:8443/b", true),
        ])
    func redirectOrigins(_ target: String, _ drops: Bool) {
        let previous = request("https://api.example.com/a", headers: [:])
        let next = request(
            target,
            headers: [
                "Authorization": "a", "proxy-authorization": "p", "Cookie": "c", "X-Api-Key": "k",
                "X-Other": "o",
            ])
        let followed = SessionDelegate.redirect(next, from: previous, sensitiveHeaders: ["x-api-key"])
        let kept = Set((followed.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() })
        let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key"]
        #expect(kept.contains("x-other"))
        #expect(kept.isDisjoint(with: credentials) == drops)
        #expect(kept.isSuperset(of: credentials) == !drops)
    }

    @Test("The session delegate refuses a redirect whose request carries an invalid header")
    func redirectWithInvalidHeaderIsRefused() async throws {
        let session = Session()
        let task = session.urlSession.dataTask(with: URL(string: "http://127.0.0.1:9/a")!)
        defer { task.cancel() }
        let bad = request("http://127.0.0.1:9/b", headers: ["X-A\r\nX-Forged": "1"])
        let response = HTTPURLResponse(
            url: bad.url!, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: [:])!
        let followed = Protected<URLRequest??>(nil)
        session.router.urlSession(
            session.urlSession, task: task, willPerformHTTPRedirection: response, newRequest: bad
        ) { next in followed.withLock { $0 = .some(next) } }
        #expect(followed.current == .some(nil))

        let good = request("http://127.0.0.1:9/b", headers: ["X-A": "1"])
        session.router.urlSession(
            session.urlSession, task: task, willPerformHTTPRedirection: response, newRequest: good
        ) { next in followed.withLock { $0 = .some(next) } }
        #expect(followed.current??.url == good.url)
    }

    @Test("Logs, cURL output, descriptions and resume data use the one credential list")
    func oneCredentialList() {
        for name in HTTPHeader.credentialNames {
            #expect(Redaction.standard.value(ofHeader: name.uppercased(), "v") == "<redacted>")
            #expect(HTTPHeader(name: name, value: "v").description.hasSuffix("<redacted>"))
        }
        #expect(HTTPHeader.requestCredentialNames.isSubset(of: ResumeData.headersNotKept))
        #expect(HTTPHeader.credentialNames == HTTPHeader.requestCredentialNames.union(["set-cookie"]))
        #expect(Redaction.standard.value(ofHeader: "X-Other", "v") == "v")
    }

    @Test(
        "Challenges: a configured credential once for Basic, the response otherwise, the default for the rest"
    )
    func challengeAnswers() {
        let credential = PasswordCredential(user: "ada", password: "lovelace")
        var configuration = Session.Configuration()
        let basic = NSURLAuthenticationMethodHTTPBasic
        #expect(
            ChallengeAnswer(
                method: basic, isProxy: false, previousFailureCount: 0, configuration: configuration)
                == .deliverResponse)
        configuration.credential = credential
        #expect(
            ChallengeAnswer(
                method: basic, isProxy: false, previousFailureCount: 0, configuration: configuration)
                == .useCredential(credential))
        #expect(
            ChallengeAnswer(
                method: basic, isProxy: false, previousFailureCount: 1, configuration: configuration)
                == .deliverResponse)
        #expect(
            ChallengeAnswer(
                method: basic, isProxy: true, previousFailureCount: 0, configuration: configuration)
                == .deliverResponse)
        configuration.proxyCredential = credential
        #expect(
            ChallengeAnswer(
                method: basic, isProxy: true, previousFailureCount: 0, configuration: configuration)
                == .useCredential(credential))
        #expect(
            ChallengeAnswer(
                method: NSURLAuthenticationMethodNTLM, isProxy: false, previousFailureCount: 0,
                configuration: configuration) == .performDefaultHandling)
    }
}
