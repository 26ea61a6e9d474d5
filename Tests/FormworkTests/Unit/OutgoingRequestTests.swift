import Foundation
import Testing

@testable import Formwork

@Suite("OutgoingRequest: the request adapters change")
struct OutgoingRequestTests {
    private func urlRequest(headers: [String: String] = [:]) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/a?b=1")))
        request.httpMethod = "POST"
        request.httpBody = Data("body".utf8)
        request.timeoutInterval = 12
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    @Test("Made from a URLRequest, it reads as that request and turns back into the same URLRequest")
    func roundTrip() throws {
        let original = try urlRequest(headers: ["Accept": "application/json", "X-Trace": "t1"])
        let request = OutgoingRequest(original)
        #expect(request.url == original.url)
        #expect(request.httpMethod == "POST")
        #expect(request.httpBody == Data("body".utf8))
        #expect(request.timeoutInterval == 12)
        #expect(request.headers == ["Accept": "application/json", "X-Trace": "t1"])
        #expect(request.allHTTPHeaderFields == ["Accept": "application/json", "X-Trace": "t1"])
        #expect(request.value(forHTTPHeaderField: "accept") == "application/json")
        #expect(request.urlRequest == original)
        #expect(request.urlRequest.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(OutgoingRequest(original) == request)
        #expect(OutgoingRequest(try urlRequest()).allHTTPHeaderFields == nil)
    }

    @Test("Changes to the modelled fields reach the URLRequest; what it does not model is kept")
    func fieldsAndTheRest() throws {
        var original = try urlRequest()
        original.httpBody = nil
        original.httpBodyStream = InputStream(data: Data("streamed".utf8))
        original.httpShouldHandleCookies = false
        var request = OutgoingRequest(original)
        request.url = URL(string: "https://api.example.com/other")
        request.httpMethod = "PUT"
        request.timeoutInterval = 3
        request.setValue("1", forHTTPHeaderField: "X-One")
        let sent = request.urlRequest
        #expect(sent.url?.absoluteString == "https://api.example.com/other")
        #expect(sent.httpMethod == "PUT")
        #expect(sent.timeoutInterval == 3)
        #expect(sent.value(forHTTPHeaderField: "X-One") == "1")
        #expect(sent.httpBodyStream != nil)
        #expect(sent.httpShouldHandleCookies == false)
        #expect(sent.cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test("setValue, addValue and value(forHTTPHeaderField:) behave as on URLRequest, names in any case")
    func headerMembers() throws {
        var request = OutgoingRequest(try urlRequest(headers: ["Accept": "a"]))
        request.addValue("b", forHTTPHeaderField: "accept")
        #expect(request.value(forHTTPHeaderField: "ACCEPT") == "a,b")
        request.addValue("1", forHTTPHeaderField: "X-New")
        #expect(request.value(forHTTPHeaderField: "x-new") == "1")
        request.setValue("c", forHTTPHeaderField: "Accept")
        #expect(request.value(forHTTPHeaderField: "Accept") == "c")
        request.setValue(nil, forHTTPHeaderField: "accept")
        #expect(request.value(forHTTPHeaderField: "Accept") == nil)
        request.allHTTPHeaderFields = nil
        #expect(request.headers.isEmpty)
        #expect(request.urlRequest.allHTTPHeaderFields?.isEmpty ?? true)
    }

    @Test(
        "Every member keeps a value with CR, LF or NUL as set, so the check sees it",
        arguments: ["token\n", "a\rb", "a\0b", "x\r\nX-Forged: 1"], HeaderSetter.allCases)
    func keepsEveryValue(_ value: String, _ setter: HeaderSetter) throws {
        var request = OutgoingRequest(try urlRequest(headers: ["Accept": "*/*"]))
        setter.set(value, named: "X-Token", on: &request)
        #expect(request.value(forHTTPHeaderField: "X-Token") == value)
        #expect(request.headers["x-token"] == value)
    }

    @Test(
        "Turning it into the URLRequest to send refuses an invalid header, naming it without its value",
        arguments: [
            ("X-Token", "s3cret\n"), ("X-Token", "a\rs3cret"), ("X-Token", "s3c\0ret"),
            ("X-A\r\nX-B", "s3cret"),
        ])
    func checkRefuses(_ name: String, _ value: String) throws {
        var request = OutgoingRequest(try urlRequest(headers: ["Accept": "*/*"]))
        request.setValue(value, forHTTPHeaderField: name)
        let error = try #require(throws: NetworkError.self) { try FinalRequestCheck.validate(request) }
        #expect(error.kind == .invalidHeader)
        #expect(error.failureReason.contains(String(name.prefix(3))))
        #expect(!String(describing: error).contains("s3cret"))
        #expect(error.request?.allHTTPHeaderFields == ["Accept": "*/*"])
        #expect(error.request?.url == request.url)
    }

    @Test("Turning it into the URLRequest to send keeps every valid header and field")
    func checkAccepts() throws {
        var request = OutgoingRequest(try urlRequest(headers: ["Accept": "*/*"]))
        request.headers["X-Tab"] = "a\tb"
        let sent = try FinalRequestCheck.validate(request)
        #expect(sent == request.urlRequest)
        #expect(sent.value(forHTTPHeaderField: "X-Tab") == "a\tb")
        #expect(sent.httpBody == Data("body".utf8))
    }

    @Test("Assigning urlRequest replaces the whole request, headers included")
    func assigningURLRequest() throws {
        var request = OutgoingRequest(try urlRequest(headers: ["Accept": "*/*", "X-Old": "1"]))
        var replacement = URLRequest(url: try #require(URL(string: "https://other.example.com/")))
        replacement.setValue("2", forHTTPHeaderField: "X-New")
        request.urlRequest = replacement
        #expect(request.url == replacement.url)
        #expect(request.httpMethod == "GET")
        #expect(request.headers == ["X-New": "2"])
        #expect(request == OutgoingRequest(replacement))
    }
}
