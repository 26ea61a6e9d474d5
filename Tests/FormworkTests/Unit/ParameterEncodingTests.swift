import Testing

@testable import Formwork

private struct Order: Encodable, Sendable {
    var orderID: Int
    var note: String
}

private struct Reading: Encodable, Sendable {
    var value: Double
}

private struct Opaque: Sendable {}

private let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

@Suite struct ParameterEncodingTests {
    private func request(_ url: String = "https://api.example.com/items", method: HTTPMethod? = nil) throws
        -> URLRequest
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method?.rawValue
        return request
    }

    private func body(_ request: URLRequest) -> String? {
        request.httpBody.map { String(decoding: $0, as: UTF8.self) }
    }

    private func encode(
        _ encoding: ParameterEncoding, _ parameters: Parameters, method: HTTPMethod? = nil,
        url: String = "https://api.example.com/items"
    ) throws -> URLRequest {
        try encoding.encode(try request(url, method: method), with: parameters)
    }

    // MARK: URL encoding

    @Test(arguments: [HTTPMethod.get, .head, .delete, "get", nil])
    func urlPutsParametersInQueryForQueryMethods(method: HTTPMethod?) throws {
        let encoded = try encode(.url, ["q": "swift concurrency", "page": 2], method: method)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items?page=2&q=swift%20concurrency")
        #expect(encoded.httpBody == nil)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .options])
    func urlPutsParametersInFormBodyForOtherMethods(method: HTTPMethod) throws {
        let encoded = try encode(.url, ["name": "A&B", "tags": ["x", "y"]], method: method)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items")
        #expect(body(encoded) == "name=A%26B&tags%5B%5D=x&tags%5B%5D=y")
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == formContentType)
    }

    @Test(
        "A query appended to a URL's text gives the URL the parsed URL gets",
        arguments: [
            "https://a.example/p", "https://a.example/p?x=1", "https://a.example/p?", "https://a.example/p#f",
            "https://a.example/p?x=1#f?g", "https://a.example", "https://a.example:8080/a%20b/?",
        ])
    func queryOnText(text: String) throws {
        let url = try #require(URL(string: text))
        let appended = ParameterEncoding.text(text, appendingQuery: "q=%E4%B8%8A&r=2")
        #expect(URL(string: appended) == ParameterEncoding.url(url, appendingQuery: "q=%E4%B8%8A&r=2"))
    }

    @Test func queryAlwaysUsesQueryString() throws {
        let encoded = try encode(.query, ["a": 1], method: .post)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items?a=1")
        #expect(encoded.httpBody == nil)
    }

    @Test func httpBodyAlwaysUsesBody() throws {
        let encoded = try encode(.httpBody, ["a": 1], method: .get)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items")
        #expect(body(encoded) == "a=1")
        #expect(encoded.value(forHTTPHeaderField: "content-type") == formContentType)
    }

    @Test func urlWithOptions() throws {
        let encoding = ParameterEncoding.url(
            destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .numeric)
        let encoded = try encode(encoding, ["ids": [1, 2], "on": true], method: .post)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items?ids=1&ids=2&on=1")
        let indexed = try encode(.url(arrayEncoding: .indexInBrackets), ["ids": [1, 2]], method: .put)
        #expect(body(indexed) == "ids%5B0%5D=1&ids%5B1%5D=2")
    }

    @Test(arguments: [
        ("https://h.example/p?x=1", "https://h.example/p?x=1&a=b%20c"),
        ("https://h.example/p?x=1#top", "https://h.example/p?x=1&a=b%20c#top"),
        ("https://h.example/p?", "https://h.example/p?a=b%20c"),
        ("https://h.example/p?q=%E4%B8%8A", "https://h.example/p?q=%E4%B8%8A&a=b%20c"),
        ("https://h.example/p#top", "https://h.example/p?a=b%20c#top"),
        ("https://h.example", "https://h.example?a=b%20c"),
        ("https://h.example/p?#f", "https://h.example/p?a=b%20c#f"),
        ("http://u:p@[::1]:8080/a%20b;c?q=%3F#", "http://u:p@[::1]:8080/a%20b;c?q=%3F&a=b%20c#"),
    ])
    func queryIsAppendedToExistingQuery(url: String, expected: String) throws {
        let encoded = try encode(.query, ["a": "b c"], url: url)
        #expect(encoded.url?.absoluteString == expected)
    }

    @Test func formBodyKeepsExistingContentType() throws {
        var original = try request(method: .post)
        original.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "content-type")
        let encoded = try ParameterEncoding.url.encode(original, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test(arguments: [ParameterEncoding.url, .query, .httpBody, .json])
    func emptyParametersLeaveRequestUnchanged(encoding: ParameterEncoding) throws {
        let original = try request("https://h.example/p?x=1", method: .post)
        let encoded = try encoding.encode(original, with: [:])
        #expect(encoded == original)
        #expect(encoded.httpBody == nil)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test(arguments: [ParameterEncoding.url, .query, .httpBody, .json, .json(Order(orderID: 1, note: ""))])
    func missingURLThrows(encoding: ParameterEncoding) throws {
        var original = try request()
        original.url = nil
        let error = #expect(throws: NetworkError.self) { try encoding.encode(original, with: ["a": 1]) }
        #expect(error?.kind == .parameterEncodingFailed)
        #expect(error?.reason == .missingURL)
        #expect(error?.request == original)
    }

    @Test func unsupportedValueThrowsFromURLEncoding() throws {
        let error = #expect(throws: NetworkError.self) {
            try encode(.url, ["filter": ["where": Opaque()]], method: .post)
        }
        #expect(error?.kind == .parameterEncodingFailed)
        #expect(error?.reason == .unsupportedValue)
        #expect(error?.parameterKeyPath == "filter[where]")
        #expect(error?.valueType == "Opaque")
        #expect(error?.request?.url?.absoluteString == "https://api.example.com/items")
    }

    // MARK: JSON parameters

    @Test func jsonEncodesSortedNestedBody() throws {
        let parameters: Parameters = [
            "zeta": "last", "path": "a/b", "count": 3, "ok": true, "ratio": 1.5, "small": Float(1.1),
            "price": Decimal(string: "9.99")!, "big": UInt64.max, "none": NSNull(), "skipped": String?.none,
            "nested": ["b": [1, "x", String?.none, NSNull()] as [any Sendable], "a": ["deep": false]]
                as [String: any Sendable],
            "when": Date(timeIntervalSince1970: 0), "city": "上海",
        ]
        let encoded = try encode(.json, parameters, method: .post)
        #expect(
            body(encoded)
                == #"{"big":18446744073709551615,"city":"上海","count":3,"nested":{"a":{"deep":false},"b":[1,"x",null,null]},"#
                + #""none":null,"ok":true,"path":"a/b","price":9.99,"ratio":1.5,"small":1.1,"#
                + #""when":"1970-01-01T00:00:00.000Z","zeta":"last"}"#)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(encoded.url?.absoluteString == "https://api.example.com/items")
    }

    @Test func jsonIsABodyEvenForGET() throws {
        let encoded = try encode(.json, ["a": 1], method: .get)
        #expect(body(encoded) == #"{"a":1}"#)
        #expect(encoded.url?.query == nil)
    }

    @Test func jsonKeepsExistingContentType() throws {
        var original = try request(method: .post)
        original.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let encoded = try ParameterEncoding.json.encode(original, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
        #expect(body(encoded) == #"{"a":1}"#)
    }

    @Test(arguments: [
        (["stats": ["ratio": Double.nan]] as Parameters, "stats[ratio]", "nan is not valid in JSON"),
        (["values": [1.0, Double.infinity]], "values[1]", "inf is not valid in JSON"),
        (["x": -Double.infinity], "x", "-inf is not valid in JSON"),
        (["f": Float.nan], "f", "nan is not valid in JSON"),
        (["d": Decimal.nan], "d", "NaN is not valid in JSON"),
    ])
    func jsonRejectsNonFiniteNumbers(parameters: Parameters, keyPath: String, reason: String) throws {
        let error = #expect(throws: NetworkError.self) { try encode(.json, parameters, method: .post) }
        #expect(error?.kind == .parameterEncodingFailed)
        #expect(error?.reason == .invalidValue)
        #expect(error?.parameterKeyPath == keyPath)
        #expect(error?.failureReason == "Cannot encode parameter \"\(keyPath)\": \(reason).")
    }

    @Test func jsonRejectsUnsupportedValues() throws {
        let nested = #expect(throws: NetworkError.self) {
            try encode(.json, ["list": [["item": Opaque()]]], method: .post)
        }
        #expect(nested?.reason == .unsupportedValue)
        #expect(nested?.parameterKeyPath == "list[0][item]")
        #expect(nested?.valueType == "Opaque")
        let data = #expect(throws: NetworkError.self) { try encode(.json, ["data": Data()], method: .post) }
        #expect(data?.reason == .unsupportedValue)
        #expect(data?.parameterKeyPath == "data")
        #expect(data?.valueType == "Data")
        #expect(
            data?.failureReason == "Cannot encode parameter \"data\": values of type Data are not supported.")
    }

    // MARK: Encodable body

    @Test func encodableBodyWithParametersInQuery() throws {
        let encoding: ParameterEncoding = .json(Order(orderID: 7, note: "a/b"))
        let encoded = try encode(
            encoding, ["page": 2, "q": "x y"], method: .post, url: "https://h.example/orders?v=1")
        #expect(
            body(encoded) == #"{"note":"a\/b","orderID":7}"#
                || body(encoded) == #"{"orderID":7,"note":"a\/b"}"#)
        #expect(encoded.url?.absoluteString == "https://h.example/orders?v=1&page=2&q=x%20y")
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func encodableBodyUsesGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let encoded = try encode(.json(Order(orderID: 7, note: "a/b"), encoder: encoder), [:], method: .put)
        #expect(body(encoded) == #"{"note":"a/b","order_id":7}"#)
        #expect(encoded.url?.absoluteString == "https://api.example.com/items")
    }

    @Test func encodableBodyKeepsExistingContentType() throws {
        var original = try request(method: .post)
        original.setValue("text/json", forHTTPHeaderField: "Content-Type")
        let encoded = try ParameterEncoding.json(["k": "v"]).encode(original, with: [:])
        #expect(body(encoded) == #"{"k":"v"}"#)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "text/json")
    }

    @Test func encoderFailureThrowsWrappingEncodingError() throws {
        let original = try request(method: .post)
        do {
            _ = try ParameterEncoding.json(Reading(value: .nan)).encode(original, with: [:])
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .parameterEncodingFailed)
            #expect(error.reason == .jsonEncodingFailed)
            #expect(error.underlyingError is EncodingError)
            #expect(
                error.failureReason
                    == "Could not encode the request body: Unable to encode Double.nan directly in JSON. (at value)"
            )
            #expect(error.request == original)
        }
    }

    @Test func unsupportedQueryParameterWithEncodableBodyThrows() throws {
        let error = #expect(throws: NetworkError.self) {
            try encode(.json(Order(orderID: 1, note: "")), ["bad": Opaque()], method: .post)
        }
        #expect(error?.reason == .unsupportedValue)
        #expect(error?.parameterKeyPath == "bad")
        #expect(error?.valueType == "Opaque")
    }

    @Test(arguments: [
        (
            NetworkError.unsupportedParameter(keyPath: "a[b]", type: "Point"),
            NetworkError.Reason.unsupportedValue,
            "Cannot encode parameter \"a[b]\": values of type Point are not supported."
        ),
        (
            .invalidParameter(keyPath: "x", why: "nan is not valid in JSON"), .invalidValue,
            "Cannot encode parameter \"x\": nan is not valid in JSON."
        ),
        (.jsonEncodingFailed("boom"), .jsonEncodingFailed, "Could not encode the request body: boom"),
        (.missingURL, .missingURL, "Cannot encode parameters: the request has no URL."),
        (.invalidQueryURL("h:"), .invalidQueryURL, "Cannot add a query string to the URL \"h:\"."),
    ])
    func errorDescriptions(error: NetworkError, reason: NetworkError.Reason, failureReason: String) {
        #expect(error.kind == .parameterEncodingFailed)
        #expect(error.reason == reason)
        #expect(error.failureReason == failureReason)
        #expect(error.description == "NetworkError.parameterEncodingFailed(\(reason)): \(failureReason)")
    }
}
