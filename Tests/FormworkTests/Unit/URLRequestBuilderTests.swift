import Foundation
import Testing

@testable import Formwork

@Suite("Building URLRequests from forms")
struct URLRequestBuilderTests {
    @Test(
        "Form URLs lose surrounding spaces and tabs (Unicode ones too), nothing else",
        arguments: [
            ("http://a.example/p", "http://a.example/p"),
            (" http://a.example/p\t", "http://a.example/p"),
            ("\u{A0}http://a.example/p\u{3000}", "http://a.example/p"),
            ("http://a.example/p\n", "http://a.example/p\n"),
            ("http://a.example/ p", "http://a.example/ p"),
            ("é", "é"),
            ("", ""),
            ("  ", ""),
        ])
    func trimming(text: String, expected: String) {
        #expect(URLRequestBuilder.trimmingWhitespace(text) == expected)
        #expect(URLRequestBuilder.trimmingWhitespace(text) == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(
        "The request's method is the form's, GET left as the default",
        arguments: [
            (HTTPMethod.get, "GET"), ("get", "GET"), (.post, "POST"), (.delete, "DELETE"), ("PURGE", "PURGE"),
        ])
    func method(method: HTTPMethod, expected: String) throws {
        let form = TestForm(url: "https://a.example/p", method: method, parameters: ["q": 1])
        let request = try URLRequestBuilder.request(for: form, configuration: Session.Configuration())
        #expect(request.httpMethod == expected)
    }
}
