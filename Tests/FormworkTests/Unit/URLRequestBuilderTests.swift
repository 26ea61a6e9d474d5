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
}
