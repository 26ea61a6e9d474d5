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

    @Test(
        "Query parameters put into the URL up front give the same request as encoding afterwards",
        arguments: [
            TestForm(
                url: "https://a.example/p",
                parameters: ["q": "a b", "n": 1, "list": [1, 2], "d": ["k": true]]),
            TestForm(url: "https://a.example/p?x=1#frag", parameters: ["q": "?/"]),
            TestForm(url: " https://a.example", method: "head", parameters: ["q": 1]),
            TestForm(
                url: "https://a.example/p?", method: .delete, headers: ["X-A": "1"], parameters: ["q": 1]),
            TestForm(url: "https://a.example/p", method: .post, parameters: ["q": 1]),
            TestForm(url: "https://a.example/p", method: .post, parameters: ["q": 1], encoding: .query),
            TestForm(url: "https://a.example/p", parameters: ["q": 1], encoding: .json),
            TestForm(url: "https://a.example/p", parameters: ["gone": String?.none]),
            TestForm(url: "https://a.example/p", parameters: [:], idleTimeout: 3),
        ])
    func queryUpFront(form: TestForm) throws {
        let configuration = Session.Configuration()
        let built = try URLRequestBuilder.request(for: form, configuration: configuration)
        let general = try form.encoding.encode(
            URLRequestBuilder.baseRequest(for: form, configuration: configuration), with: form.parameters)
        #expect(built.url?.absoluteString == general.url?.absoluteString)
        #expect(built.httpMethod == general.httpMethod)
        #expect(built.allHTTPHeaderFields == general.allHTTPHeaderFields)
        #expect(built.httpBody == general.httpBody)
        #expect(built.timeoutInterval == general.timeoutInterval)
    }

    @Test("With bad parameters and a bad header, the header is still reported first")
    func errorOrder() {
        let form = TestForm(
            url: "https://a.example/p", headers: ["X-Bad": "a\nb"], parameters: ["q": Double.nan])
        #expect(throws: NetworkError.self) {
            try URLRequestBuilder.request(for: form, configuration: Session.Configuration())
        }
        do {
            _ = try URLRequestBuilder.request(for: form, configuration: Session.Configuration())
        } catch {
            #expect(error.kind == .invalidHeader)
        }
    }

    @Test("A session's memo gives a form sent again the URL it got the first time, per URL text and query")
    func memo() throws {
        let (configuration, urls) = (Session.Configuration(), URLMemo())
        let first = TestForm(url: "https://a.example/p q", parameters: ["q": "a b"])
        let other = TestForm(url: "https://a.example/p q", parameters: ["q": "c"])
        let once = try URLRequestBuilder.request(for: first, configuration: configuration, urls: urls)
        let again = try URLRequestBuilder.request(for: first, configuration: configuration, urls: urls)
        let otherQuery = try URLRequestBuilder.request(for: other, configuration: configuration, urls: urls)
        let withoutMemo = try URLRequestBuilder.request(for: first, configuration: configuration)
        #expect(once.request.url?.absoluteString == "https://a.example/p%20q?q=a%20b")
        #expect(again.request.url == once.request.url)
        #expect(withoutMemo.url == once.request.url)
        #expect(otherQuery.request.url?.absoluteString == "https://a.example/p%20q?q=c")
        #expect(urls.count == 2)
        #expect(once.headersChecked && again.headersChecked)
    }

    @Test("The memo starts over once it holds its capacity")
    func memoBound() {
        let urls = URLMemo()
        for index in 0..<(URLMemo.capacity + 1) {
            urls.remember(URL(fileURLWithPath: "/\(index)"), text: "t\(index)", query: "")
        }
        #expect(urls.count == 1)
        #expect(urls.url(text: "t\(URLMemo.capacity)", query: "") != nil)
    }

    @Test("A request built with a body from the form's encoding is checked again before it is sent")
    func headersCheckedOnlyOnTheQueryPath() throws {
        let form = TestForm(url: "https://a.example/p", method: .post, parameters: ["q": 1])
        let built = try URLRequestBuilder.request(
            for: form, configuration: Session.Configuration(), urls: URLMemo())
        #expect(!built.headersChecked)
        #expect(built.request.httpBody != nil)
    }
}
