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

    @Test("A session's memo gives a form sent again the request it got the first time, per form")
    func memo() throws {
        let (configuration, memo) = (Session.Configuration(), RequestMemo())
        let first = TestForm(url: "https://a.example/p q", parameters: ["q": "a b"])
        let otherQuery = TestForm(url: "https://a.example/p q", parameters: ["q": "c"])
        let otherHeaders = TestForm(
            url: "https://a.example/p q", headers: ["X-A": "1"], parameters: ["q": "a b"])
        let otherMethod = TestForm(url: "https://a.example/p q", method: .delete, parameters: ["q": "a b"])
        let otherTimeout = TestForm(url: "https://a.example/p q", parameters: ["q": "a b"], idleTimeout: 3)
        let once = try URLRequestBuilder.request(for: first, configuration: configuration, memo: memo)
        let again = try URLRequestBuilder.request(for: first, configuration: configuration, memo: memo)
        #expect(memo.count == 1)
        let withoutMemo = try URLRequestBuilder.request(for: first, configuration: configuration)
        #expect(once.request.url?.absoluteString == "https://a.example/p%20q?q=a%20b")
        #expect(again.request == once.request)
        #expect(withoutMemo == once.request)
        #expect(again.request.allHTTPHeaderFields == withoutMemo.allHTTPHeaderFields)
        #expect(once.headersChecked && again.headersChecked)
        // (URLRequest's own == leaves out headers and the timeout on Linux.)
        let fields = { (request: URLRequest) in
            "\(request.url?.absoluteString ?? "") \(request.httpMethod ?? "") "
                + (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
                    "\($0.key)=\($0.value)"
                }
                .joined(separator: ",") + " \(request.timeoutInterval)"
        }
        for form in [otherQuery, otherHeaders, otherMethod, otherTimeout] {
            let built = try URLRequestBuilder.request(for: form, configuration: configuration, memo: memo)
            let fresh = try URLRequestBuilder.request(for: form, configuration: configuration)
            #expect(fields(built.request) == fields(fresh))
            #expect(fields(built.request) != fields(once.request))
        }
        #expect(memo.count == 5)
    }

    @Test("The memo starts over once it holds its capacity")
    func memoBound() throws {
        let memo = RequestMemo()
        let request = URLRequest(url: try #require(URL(string: "https://a.example")))
        let key = { (index: Int) in
            RequestMemo.Key(text: "t\(index)", query: "", method: "GET", idleTimeout: nil, headers: [:])
        }
        for index in 0..<(RequestMemo.capacity + 1) {
            memo.remember(request, for: key(index))
        }
        #expect(memo.count == 1)
        #expect(memo.request(for: key(RequestMemo.capacity)) != nil)
    }

    @Test(
        "A request whose form's encoding sets a body is not remembered, and is checked again before it is sent"
    )
    func headersCheckedOnlyOnTheQueryPath() throws {
        let form = TestForm(url: "https://a.example/p", method: .post, parameters: ["q": 1])
        let memo = RequestMemo()
        let built = try URLRequestBuilder.request(
            for: form, configuration: Session.Configuration(), memo: memo)
        #expect(!built.headersChecked)
        #expect(built.request.httpBody != nil)
        #expect(memo.count == 0)
    }

    @Test("A form with a bad header is refused every time, never remembered")
    func badHeaderNotRemembered() {
        let form = TestForm(url: "https://a.example/p", headers: ["X-Bad": "a\nb"], parameters: ["q": 1])
        let memo = RequestMemo()
        for _ in 0..<2 {
            #expect(throws: NetworkError.self) {
                try URLRequestBuilder.request(for: form, configuration: Session.Configuration(), memo: memo)
            }
        }
        #expect(memo.count == 0)
    }
}
