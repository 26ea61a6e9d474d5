import Foundation
import Testing

@testable import Formwork

@Suite("Base URLs: relative form URLs resolved as RFC 3986 section 5 says")
struct BaseURLTests {
    /// RFC 3986 section 5.4's base URI.
    static let rfcBase = "http://a/b/c/d;p?q"

    @Test(
        "RFC 3986 section 5.4.1, normal examples",
        arguments: [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ])
    func normalExamples(reference: String, expected: String) throws {
        #expect(try URLReference.resolve(reference, against: Self.rfcBase) == expected)
    }

    @Test(
        "RFC 3986 section 5.4.2, abnormal examples (strict parser)",
        arguments: [
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
            ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
        ])
    func abnormalExamples(reference: String, expected: String) throws {
        #expect(try URLReference.resolve(reference, against: Self.rfcBase) == expected)
    }

    @Test(
        "The trailing slash of the base decides whether its last segment stays",
        arguments: [
            ("https://api.x.com/v1/", "users", "https://api.x.com/v1/users"),
            ("https://api.x.com/v1", "users", "https://api.x.com/users"),
            ("https://api.x.com/v1/", "/users", "https://api.x.com/users"),
            ("https://api.x.com/v1", "/users", "https://api.x.com/users"),
            ("https://api.x.com", "users", "https://api.x.com/users"),
            ("https://api.x.com/v1/", "users/7?full=1", "https://api.x.com/v1/users/7?full=1"),
            ("https://api.x.com/v1/", "../v2/users", "https://api.x.com/v2/users"),
        ])
    func trailingSlash(base: String, reference: String, expected: String) throws {
        var configuration = Session.Configuration()
        configuration.baseURL = base
        let request = try URLRequestBuilder.request(
            for: TestForm(url: reference), configuration: configuration)
        #expect(request.url?.absoluteString == expected)
    }

    @Test("A form's absolute URL wins over the base URL")
    func absoluteWins() throws {
        var configuration = Session.Configuration()
        configuration.baseURL = "https://api.x.com/v1/"
        let form = TestForm(url: "https://other.example/p", parameters: ["q": 1])
        let request = try URLRequestBuilder.request(for: form, configuration: configuration)
        #expect(request.url?.absoluteString == "https://other.example/p?q=1")
    }

    @Test(
        "A relative URL is checked and percent-encoded after it is resolved; parameters still go in the query"
    )
    func encodedAfterResolving() throws {
        var configuration = Session.Configuration()
        configuration.baseURL = " https://api.x.com/v1/ "
        let form = TestForm(url: "search results", parameters: ["q": "a b"])
        let request = try URLRequestBuilder.request(for: form, configuration: configuration)
        #expect(request.url?.absoluteString == "https://api.x.com/v1/search%20results?q=a%20b")
    }

    @Test("A relative URL without a base URL is an invalidURL error that names baseURL, never a crash")
    func relativeWithoutBase() {
        for relative in ["users", "/users", "?page=2", ""] {
            let error = #expect(throws: NetworkError.self) {
                try URLRequestBuilder.request(
                    for: TestForm(url: relative), configuration: Session.Configuration())
            }
            #expect(error?.kind == .invalidURL)
            if !relative.isEmpty { #expect(error?.failureReason.contains("baseURL") == true) }
        }
    }

    @Test("A base URL that is not absolute, or not http(s), is an invalidURL error")
    func badBase() {
        for base in ["api.x.com/v1", "/v1/", "ftp://files.x.com/"] {
            var configuration = Session.Configuration()
            configuration.baseURL = base
            let error = #expect(throws: NetworkError.self) {
                try URLRequestBuilder.request(for: TestForm(url: "users"), configuration: configuration)
            }
            #expect(error?.kind == .invalidURL)
        }
    }

    @Test("Without a base URL a form's URL is used as it was")
    func noBase() throws {
        #expect(try URLRequestBuilder.text(of: " users ", baseURL: nil) == "users")
        #expect(try URLRequestBuilder.text(of: "https://a.example/p", baseURL: nil) == "https://a.example/p")
    }
}
