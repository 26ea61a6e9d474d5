import Foundation
import Testing

@testable import Formwork

@Suite("Redaction")
struct RedactionTests {
    let redaction = Redaction(headers: ["X-Api-Key"], queryItems: ["token", "sign"])

    @Test(
        "Query values of configured names are hidden; the rest of the URL is kept",
        arguments: [
            ("http://h/p?token=abc&city=rome", "http://h/p?token=<redacted>&city=rome"),
            ("http://h/p?city=rome&Token=abc#frag", "http://h/p?city=rome&Token=<redacted>#frag"),
            ("http://h/p?to%6Ben=abc", "http://h/p?to%6Ben=<redacted>"),
            ("http://h/p?sign&x=1", "http://h/p?sign=<redacted>&x=1"),
            ("http://h/p", "http://h/p"),
            ("http://h/p?", "http://h/p?"),
        ])
    func queries(url: String, expected: String) {
        #expect(redaction.url(URL(string: url)) == expected)
    }

    @Test("Standard and configured headers are hidden, case-insensitively")
    func headers() {
        #expect(redaction.value(ofHeader: "authorization", "Bearer x") == "<redacted>")
        #expect(redaction.value(ofHeader: "SET-COOKIE", "a=b") == "<redacted>")
        #expect(redaction.value(ofHeader: "x-api-key", "k") == "<redacted>")
        #expect(redaction.value(ofHeader: "Accept", "*/*") == "*/*")
        #expect(Redaction.standard.value(ofHeader: "Proxy-Authorization", "p") == "<redacted>")
    }

    @Test("cURL quoting survives quotes and shell metacharacters")
    func quoting() {
        #expect(URLRequest.shellQuoted("it's $HOME `x`") == #"'it'\''s $HOME `x`'"#)
    }
}
