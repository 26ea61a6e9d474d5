import Testing

@testable import Formwork

/// A `Sendable` type the encoders do not know.
private struct Point: Sendable {
    var x = 0
}

@Suite struct URLQueryEncoderTests {
    private let encoder = URLQueryEncoder()

    @Test func emptyParametersGiveEmptyString() throws {
        #expect(try encoder.encode([:]) == "")
    }

    @Test func keysAreSorted() throws {
        let parameters: Parameters = ["page": 2, "b": "2", "a": "1", "Z": "upper", "aa": "x"]
        #expect(try encoder.encode(parameters) == "Z=upper&a=1&aa=x&b=2&page=2")
    }

    @Test func nestedDictionariesAreSortedAtEveryLevel() throws {
        let parameters: Parameters = [
            "user": ["name": "Ann", "age": 30, "address": ["zip": "200000", "city": "Shanghai"]]
                as [String: any Sendable],
            "a": "first",
        ]
        #expect(
            try encoder.encode(parameters)
                == "a=first&user%5Baddress%5D%5Bcity%5D=Shanghai&user%5Baddress%5D%5Bzip%5D=200000"
                + "&user%5Bage%5D=30&user%5Bname%5D=Ann")
    }

    @Test(arguments: [
        (URLQueryEncoder.ArrayEncoding.brackets, "ids%5B%5D=3&ids%5B%5D=1&ids%5B%5D=2"),
        (.noBrackets, "ids=3&ids=1&ids=2"),
        (.indexInBrackets, "ids%5B0%5D=3&ids%5B1%5D=1&ids%5B2%5D=2"),
    ])
    func arrayEncodings(mode: URLQueryEncoder.ArrayEncoding, expected: String) throws {
        let encoder = URLQueryEncoder(arrayEncoding: mode)
        #expect(try encoder.encode(["ids": [3, 1, 2]]) == expected)
    }

    @Test func arraysOfMixedValuesStringsAndDictionaries() throws {
        let parameters: Parameters = [
            "mixed": ["a", 1, true] as [any Sendable],
            "names": ["x y", "z"],
            "items": [["id": 1], ["id": 2]],
        ]
        #expect(
            try encoder.encode(parameters)
                == "items%5B%5D%5Bid%5D=1&items%5B%5D%5Bid%5D=2&mixed%5B%5D=a&mixed%5B%5D=1&mixed%5B%5D=true"
                + "&names%5B%5D=x%20y&names%5B%5D=z")
    }

    @Test(arguments: [
        (URLQueryEncoder.BoolEncoding.literal, "no=false&yes=true", "flag=true"),
        (.numeric, "no=0&yes=1", "flag=1"),
    ])
    func boolEncodings(mode: URLQueryEncoder.BoolEncoding, expected: String, nsNumberExpected: String) throws
    {
        let encoder = URLQueryEncoder(boolEncoding: mode)
        #expect(try encoder.encode(["yes": true, "no": false]) == expected)
        #expect(try encoder.encode(["flag": NSNumber(value: true)]) == nsNumberExpected)
        #expect(try encoder.encode(["one": 1, "zero": NSNumber(value: 0)]) == "one=1&zero=0")
    }

    @Test(arguments: [
        ("a b", "a%20b"),
        ("a&b=c", "a%26b%3Dc"),
        ("1+1", "1%2B1"),
        ("#frag", "%23frag"),
        ("上海", "%E4%B8%8A%E6%B5%B7"),
        ("é😀", "%C3%A9%F0%9F%98%80"),
        ("path/to?x", "path/to?x"),
        ("100%", "100%25"),
        (":#[]@!$&'()*+,;=", "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
        ("AZaz09-._~", "AZaz09-._~"),
        ("\"<>\\^`{|}\n", "%22%3C%3E%5C%5E%60%7B%7C%7D%0A"),
    ])
    func valuesArePercentEncoded(value: String, encoded: String) throws {
        #expect(try encoder.encode(["v": value]) == "v=\(encoded)")
    }

    @Test func keysArePercentEncodedToo() throws {
        #expect(
            try encoder.encode(["a b&c": 1, "城市": "上海"])
                == "a%20b%26c=1&%E5%9F%8E%E5%B8%82=%E4%B8%8A%E6%B5%B7")
        #expect(try encoder.encode(["a": ["b c": "v"]]) == "a%5Bb%20c%5D=v")
    }

    @Test func stringsOfEveryKindEncodeAlike() throws {
        let optional: String? = "a b"
        let nested: String?? = "a b"
        let parameters: Parameters = [
            "plain": "a b", "optional": optional, "nested": nested, "substring": "a b"[...],
            "safe": "Az09-._~?/",
        ]
        #expect(
            try encoder.encode(parameters)
                == "nested=a%20b&optional=a%20b&plain=a%20b&safe=Az09-._~?/&substring=a%20b")
    }

    @Test func nullAndOptionals() throws {
        let some: String? = "here"
        let none: String? = nil
        let nestedNone: Int?? = .some(nil)
        let parameters: Parameters = [
            "null": NSNull(), "some": some, "none": none, "nestedNone": nestedNone,
            "dict": ["gone": none, "kept": 1] as [String: any Sendable],
        ]
        #expect(try encoder.encode(parameters) == "dict%5Bkept%5D=1&null=&some=here")
    }

    @Test func nilArrayElementsAreSkippedKeepingIndices() throws {
        let values: [Int?] = [1, nil, 3]
        #expect(
            try URLQueryEncoder(arrayEncoding: .indexInBrackets).encode(["a": values])
                == "a%5B0%5D=1&a%5B2%5D=3")
        #expect(try encoder.encode(["a": values]) == "a%5B%5D=1&a%5B%5D=3")
    }

    @Test func emptyCollectionsAddNothing() throws {
        #expect(try encoder.encode(["list": [Int](), "map": [String: String](), "x": 1]) == "x=1")
    }

    @Test(arguments: [
        (Int8(-8) as any Sendable, "-8"), (UInt64.max, "18446744073709551615"),
        (Int.min, "-9223372036854775808"),
        (1.5, "1.5"), (1.0, "1.0"), (0.1, "0.1"), (1e-5, "1e-05"), (Float(1.1), "1.1"),
        (Decimal(string: "3.140")!, "3.14"), (NSNumber(value: 42), "42"), (NSNumber(value: 2.5), "2.5"),
        (NSNumber(value: UInt64.max), "18446744073709551615"), (NSDecimalNumber(string: "9.99"), "9.99"),
        (Substring("sub"), "sub"),
        (URL(string: "https://example.com/a?q=1")!, "https%3A//example.com/a?q%3D1"),
        (UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        (Date(timeIntervalSince1970: 1_714_552_200.5), "2024-05-01T08%3A30%3A00.500Z"),
    ])
    func scalarValues(value: any Sendable, expected: String) throws {
        #expect(try encoder.encode(["v": value]) == "v=\(expected)")
    }

    @Test(arguments: [
        (
            ["user": ["tags": ["ok", Point()] as [any Sendable]] as [String: any Sendable]] as Parameters,
            "user[tags][1]", "Point"
        ),
        (["blob": Data([1, 2])], "blob", "Data"),
        (["set": Set([1])], "set", "Set<Int>"),
        (["ints": [1: "a"]], "ints", "Dictionary<Int, String>"),
        (["list": [[Point()]]], "list[0][0]", "Point"),
    ])
    func unsupportedValueThrowsNamingKeyPath(parameters: Parameters, keyPath: String, type: String) {
        let error = #expect(throws: NetworkError.self) { try encoder.encode(parameters) }
        #expect(error?.kind == .parameterEncodingFailed)
        #expect(error?.reason == .unsupportedValue)
        #expect(error?.parameterKeyPath == keyPath)
        #expect(error?.valueType == type)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersThrow(value: Double) {
        let error = #expect(throws: NetworkError.self) { try encoder.encode(["ratio": ["x": value]]) }
        #expect(error?.kind == .parameterEncodingFailed)
        #expect(error?.reason == .invalidValue)
        #expect(error?.parameterKeyPath == "ratio[x]")
        #expect(
            error?.failureReason == "Cannot encode parameter \"ratio[x]\": \(value) is not a finite number.")
    }

    @Test func errorDescriptionNamesKeyPathAndType() {
        do {
            _ = try encoder.encode(["user": ["avatar": Point()]])
            Issue.record("expected an error")
        } catch {
            #expect(
                error.failureReason
                    == "Cannot encode parameter \"user[avatar]\": values of type Point are not supported.")
            #expect(
                error.description
                    == "NetworkError.parameterEncodingFailed(unsupportedValue): \(error.failureReason)")
        }
    }
}
