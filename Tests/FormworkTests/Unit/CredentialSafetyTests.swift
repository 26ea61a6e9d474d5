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
        let followed = RedirectRule.withoutCredentials(
            next, leaving: previous.url, sensitiveHeaders: ["x-api-key"])
        let kept = Set((followed.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() })
        let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key"]
        #expect(kept.contains("x-other"))
        #expect(kept.isDisjoint(with: credentials) == drops)
        #expect(kept.isSuperset(of: credentials) == !drops)
    }

    @Test(
        "A redirect whose request carries an invalid header is refused; a 307 or 308 with a body is not followed"
    )
    func redirectRules() throws {
        let bad = request("http://127.0.0.1:9/b", headers: ["X-A\r\nX-Forged": "1"])
        let response = try #require(
            HTTPURLResponse(url: bad.url!, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: [:]))
        #expect(throws: NetworkError.self) {
            try RedirectRule.follow(response, to: bad, hasBody: false, sensitiveHeaders: [])
        }
        let good = request("http://127.0.0.1:9/b", headers: ["X-A": "1"])
        #expect(
            try RedirectRule.follow(response, to: good, hasBody: true, sensitiveHeaders: [])?.url == good.url)
        for status in [307, 308] {
            let keeping = try #require(
                HTTPURLResponse(url: bad.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])
            )
            #expect(try RedirectRule.follow(keeping, to: good, hasBody: true, sensitiveHeaders: []) == nil)
            #expect(
                try RedirectRule.follow(keeping, to: good, hasBody: false, sensitiveHeaders: [])?.url
                    == good.url)
        }
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
        func answer(proxy: Bool = false, failures: Int = 0) -> PasswordCredential? {
            EngineSettings(configuration).credential(isProxy: proxy, previousFailures: failures)
        }
        #expect(answer() == nil)
        #expect(ChallengeAnswer(method: basic) { answer() } == .deliverResponse)
        configuration.credentials.server = credential
        #expect(answer() == credential)
        #expect(ChallengeAnswer(method: basic) { answer() } == .useCredential(credential))
        #expect(answer(failures: 1) == nil)
        #expect(ChallengeAnswer(method: basic) { answer(failures: 1) } == .deliverResponse)
        #expect(answer(proxy: true) == nil)
        configuration.credentials.proxy = credential
        #expect(answer(proxy: true) == credential)
        #expect(
            ChallengeAnswer(method: NSURLAuthenticationMethodNTLM) { answer() } == .performDefaultHandling)
    }
}
