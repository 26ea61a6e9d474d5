import Foundation
import Testing

@testable import Formwork

@Suite("URL text becomes the same URL on every platform")
struct URLTextTests {
    @Test(
        "Characters a part does not allow are percent-encoded as UTF-8, part by part",
        arguments: [
            ("https://example.com/a b/ü?q=x|y", "https://example.com/a%20b/%C3%BC?q=x%7Cy"),
            ("http://h.example/[x]^\"<>{}`\\", "http://h.example/%5Bx%5D%5E%22%3C%3E%7B%7D%60%5C"),
            ("http://h.example/p?ids[]=1&ids[]=2", "http://h.example/p?ids%5B%5D=1&ids%5B%5D=2"),
            ("http://h.example/p?a=b c#frag ment#2", "http://h.example/p?a=b%20c#frag%20ment%232"),
            ("http://h.example/日本?名=値", "http://h.example/%E6%97%A5%E6%9C%AC?%E5%90%8D=%E5%80%A4"),
            ("http://h.example/emoji/🙂", "http://h.example/emoji/%F0%9F%99%82"),
            ("http://h.example/a\nb", "http://h.example/a%0Ab"),
            ("http://us er:pa ss@h.example/", "http://us%20er:pa%20ss@h.example/"),
        ])
    func encodesWhatMustBeEncoded(text: String, expected: String) throws {
        #expect(try URLText.encoded(text) == expected)
        #expect(try URLText.url(from: text).absoluteString == expected)
    }

    @Test(
        "Valid URLs and valid escapes are left alone: nothing is encoded twice",
        arguments: [
            "https://example.com",
            "https://example.com/",
            "https://example.com/a%20b/%C3%BC?q=x%7Cy",
            "https://example.com/p?redirect=/a/b?c=d&e=f;g#x?y/z",
            "https://user:pass@example.com:8443/p/!$&'()*+,;=:@?k=v",
            "HTTP://EXAMPLE.com/P",
            "http://127.0.0.1:8080/status/200",
            "http://[::1]:8080/x",
            "http://[2001:db8::ff00:42:8329]/",
            "http://h.example/%7e%2F",
        ])
    func leavesValidTextAlone(text: String) throws {
        #expect(try URLText.encoded(text) == text)
        #expect(try URLText.url(from: text).absoluteString == text)
    }

    @Test(
        "A percent sign that starts no escape is encoded itself",
        arguments: [
            ("http://h.example/100%", "http://h.example/100%25"),
            ("http://h.example/a%2", "http://h.example/a%252"),
            ("http://h.example/?q=%zz", "http://h.example/?q=%25zz"),
            ("http://h.example/?q=%41%", "http://h.example/?q=%41%25"),
        ])
    func lonePercent(text: String, expected: String) throws {
        #expect(try URLText.encoded(text) == expected)
    }

    @Test("An empty port means the scheme's default")
    func emptyPort() throws {
        #expect(try URLText.encoded("http://h.example:/p") == "http://h.example/p")
    }

    @Test(
        "Text that cannot be an http(s) request URL is an invalidURL error on every platform",
        arguments: [
            ("", "empty"),
            ("example.com/path", "no scheme"),
            ("://example.com", "no scheme"),
            ("1http://example.com", "no scheme"),
            ("ftp://example.com/file", "not an http or https URL"),
            ("file:///etc/passwd", "not an http or https URL"),
            ("mailto:someone@example.com", "not an http or https URL"),
            ("http:example.com", "no host"),
            ("http://", "no host"),
            ("http:///path", "no host"),
            ("http://:80/path", "no host"),
            ("http://user@/path", "no host"),
            ("http://exa mple.com/", "characters a host name cannot have"),
            ("http://exa|mple.com/", "characters a host name cannot have"),
            ("http://exa%20mple.com/", "characters a host name cannot have"),
            ("https://bücher.example/", "non-ASCII host"),
            ("http://h.example:99999/", "invalid port"),
            ("http://h.example:0/", "invalid port"),
            ("http://h.example:8o/", "invalid port"),
            ("http://h.example:-1/", "invalid port"),
            ("http://h.example:80:80/", "invalid port"),
            ("http://[::1/", "IPv6"),
            ("http://[zz]/", "IPv6"),
            ("http://[::1]x/", "IPv6"),
        ])
    func invalid(text: String, reason: String) {
        #expect {
            _ = try URLText.url(from: text)
        } throws: { error in
            guard let error = error as? NetworkError else { return false }
            return error.kind == .invalidURL && error.failureReason.contains(reason)
        }
    }

    @Test("A form's URL text goes through the same rules, after trimming spaces and tabs")
    func formsUseIt() throws {
        let form = TestForm(url: "  https://example.com/a b/ü?q=x|y\t", parameters: ["k": "v w"])
        let request = try URLRequestBuilder.request(for: form, configuration: Session.Configuration())
        #expect(request.url?.absoluteString == "https://example.com/a%20b/%C3%BC?q=x%7Cy&k=v%20w")
        let bad = TestForm(url: "https://exa mple.com/")
        #expect {
            _ = try URLRequestBuilder.request(for: bad, configuration: Session.Configuration())
        } throws: { error in
            (error as? NetworkError)?.kind == .invalidURL
        }
    }
}

@Suite("Stubs read URL text the way forms do")
struct StubURLTextTests {
    @Test("A stub for URL text with spaces and non-ASCII answers the form with the same text")
    func stubMatchesFormText() async throws {
        let text = "https://stub.example/a b/ü?q=x|y"
        let stubs = StubRegistry()
        stubs.stub(.get, text, .text("matched"))
        let session = Session(stubs: stubs)
        let answer = try await Client().request(TestForm(url: text), session: session).string()
        #expect(answer == "matched")
        #expect(stubs.requests.first?.url?.absoluteString == "https://stub.example/a%20b/%C3%BC?q=x%7Cy")
    }
}
