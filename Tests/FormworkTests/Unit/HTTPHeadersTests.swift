import Testing

@testable import Formwork

@Suite struct HTTPMethodTests {
    @Test func rawValuesAndLiterals() {
        #expect(HTTPMethod.get.rawValue == "GET")
        #expect(HTTPMethod.connect.rawValue == "CONNECT")
        let custom: HTTPMethod = "PROPFIND"
        #expect(custom.rawValue == "PROPFIND")
        #expect(custom.description == "PROPFIND")
        #expect(HTTPMethod(rawValue: "POST") == .post)
        #expect(HTTPMethod(rawValue: "post") != .post)
    }

    @Test(arguments: [
        (HTTPMethod.get, true), (.head, true), (.put, true), (.delete, true), (.options, true),
        (.trace, true), (.post, false), (.patch, false), (.connect, false), ("PROPFIND", false),
    ])
    func idempotency(method: HTTPMethod, idempotent: Bool) {
        #expect(method.isIdempotent == idempotent)
    }

    @Test(
        "A method token is compared with a method's name in any ASCII case, and only that name",
        arguments: [
            ("GET", true), ("get", true), ("gEt", true), ("GETS", false), ("GE", false), ("", false),
            ("POST", false), ("G\u{C9}T", false), ("g\u{0}t", false), ("GeT ", false),
        ])
    func token(token: String, isGet: Bool) {
        #expect(token.equalsIgnoringASCIICase("GET") == isGet)
    }
}

@Suite struct HTTPHeadersTests {
    private func names(_ headers: HTTPHeaders) -> [String] { headers.map(\.name) }

    @Test func dictionaryLiteralKeepsWrittenOrder() {
        let headers: HTTPHeaders = ["Zeta": "1", "alpha": "2", "Mid": "3"]
        #expect(names(headers) == ["Zeta", "alpha", "Mid"])
        #expect(headers.count == 3)
        #expect(headers[1] == HTTPHeader(name: "alpha", value: "2"))
    }

    @Test func arrayLiteralAndHelpers() {
        let headers: HTTPHeaders = [
            .accept("application/json"), .contentType("text/plain"), .userAgent("App/1.0"),
        ]
        #expect(names(headers) == ["Accept", "Content-Type", "User-Agent"])
        #expect(headers["user-agent"] == "App/1.0")
    }

    @Test func dictionaryInitializerSortsByName() {
        let headers = HTTPHeaders(["b-header": "2", "A-Header": "1", "c": "3"])
        #expect(names(headers) == ["A-Header", "b-header", "c"])
    }

    @Test(arguments: ["content-type", "CONTENT-TYPE", "Content-Type", "cOnTeNt-TyPe"])
    func lookupIgnoresCase(name: String) {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(headers[name] == "application/json")
        #expect(headers.value(for: name) == "application/json")
    }

    @Test func updateReplacesInPlaceWithNewSpelling() {
        var headers: HTTPHeaders = ["accept": "text/html", "X-Trace": "1"]
        headers.update(.accept("application/json"))
        #expect(
            Array(headers) == [
                HTTPHeader(name: "Accept", value: "application/json"),
                HTTPHeader(name: "X-Trace", value: "1"),
            ])
        #expect(headers.map(\.name) == ["Accept", "X-Trace"])
        headers.update(name: "x-trace", value: "2")
        #expect(headers.map(\.name) == ["Accept", "x-trace"])
        #expect(headers["X-TRACE"] == "2")
        headers.update(name: "New", value: "3")
        #expect(headers.map(\.name) == ["Accept", "x-trace", "New"])
    }

    @Test func addReplacesInsteadOfDuplicating() {
        var headers = HTTPHeaders()
        headers["X-A"] = "1"
        headers.update(HTTPHeader(name: "x-a", value: "2"))
        #expect(headers.count == 1)
        #expect(headers.description == "x-a: 2")
    }

    @Test func removeAndSubscriptNilIgnoreCase() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "C": "3"]
        headers.remove(name: "b")
        #expect(names(headers) == ["A", "C"])
        headers["a"] = nil
        #expect(names(headers) == ["C"])
        headers["missing"] = nil
        headers["D"] = "4"
        #expect(headers.dictionary == ["C": "3", "D": "4"])
    }

    @Test func duplicateNamesInInitializerKeepFirstPosition() {
        let headers = HTTPHeaders([
            HTTPHeader(name: "A", value: "1"), HTTPHeader(name: "B", value: "2"),
            HTTPHeader(name: "a", value: "3"),
        ])
        #expect(headers.description == "a: 3\nB: 2")
    }

    @Test func mergingLetsOtherWinCaseInsensitively() {
        let base: HTTPHeaders = ["Accept": "*/*", "X-App": "1", "User-Agent": "Base"]
        let form: HTTPHeaders = ["user-agent": "Form", "X-New": "n"]
        let merged = base.merging(form)
        #expect(merged.description == "Accept: */*\nX-App: 1\nuser-agent: Form\nX-New: n")
        #expect(base["User-Agent"] == "Base")
    }

    @Test func equalityIgnoresNameCaseButNotOrderOrValueCase() {
        let a: HTTPHeaders = ["Accept": "json", "X-A": "1"]
        let b: HTTPHeaders = ["accept": "json", "x-a": "1"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["X-A": "1", "Accept": "json"])
        #expect(a != ["Accept": "JSON", "X-A": "1"])
        #expect(HTTPHeader(name: "ACCEPT", value: "x") == .accept("x"))
    }

    @Test func authorizationHelpers() {
        #expect(
            HTTPHeader.authorization(bearerToken: "abc")
                == HTTPHeader(name: "Authorization", value: "Bearer abc"))
        #expect(HTTPHeader.authorization(username: "user", password: "pass").value == "Basic dXNlcjpwYXNz")
        #expect(HTTPHeader.authorization(username: "用户", password: "p:w").value == "Basic 55So5oi3OnA6dw==")
    }

    @Test func descriptionRedactsCredentials() {
        let headers: HTTPHeaders = [
            .authorization(bearerToken: "secret"), HTTPHeader(name: "cookie", value: "s=1"),
            HTTPHeader(name: "Proxy-Authorization", value: "Basic x"), .accept("json"),
        ]
        #expect(
            headers.description
                == "Authorization: <redacted>\ncookie: <redacted>\nProxy-Authorization: <redacted>\nAccept: json"
        )
        #expect(!headers.description.contains("secret"))
    }

    @Test(arguments: [
        ("X-Bad\rName", Unicode.Scalar("\r")), ("X-Bad\nName", "\n"), ("X-Bad\r\nName", "\r"),
        ("X-Bad\0Name", "\0"), ("X Bad", " "), ("X-Bad:", ":"), ("Naïve", "ï"), ("(x)", "("),
    ])
    func invalidNameCharacterIsRejected(name: String, bad: Unicode.Scalar) {
        let headers: HTTPHeaders = [HTTPHeader(name: "Ok", value: "1"), HTTPHeader(name: name, value: "v")]
        let error = #expect(throws: NetworkError.self) { try headers.validate() }
        #expect(error?.kind == .invalidHeader)
        #expect(error?.reason == .invalidHeaderNameCharacter)
        #expect(error?.headerName == name)
        #expect(error?.invalidCharacter == bad)
    }

    @Test func emptyNameIsRejected() {
        let error = #expect(throws: NetworkError.self) { try HTTPHeader(name: "", value: "v").validate() }
        #expect(error?.kind == .invalidHeader)
        #expect(error?.reason == .emptyHeaderName)
        #expect(error?.headerName == "")
        #expect(error?.invalidCharacter == nil)
    }

    @Test(arguments: [
        ("evil\r", Unicode.Scalar("\r")), ("evil\nX-Injected: 1", "\n"), ("a\r\nX-Injected: 1", "\r"),
        ("a\0b", "\0"), ("bell\u{07}", "\u{07}"), ("del\u{7F}", "\u{7F}"),
    ])
    func invalidValueCharacterIsRejected(value: String, bad: Unicode.Scalar) {
        let headers: HTTPHeaders = ["X-Value": value]
        for error in [
            #expect(throws: NetworkError.self) { try headers.validate() },
            #expect(throws: NetworkError.self) { try headers.validated() },
        ] {
            #expect(error?.kind == .invalidHeader)
            #expect(error?.reason == .invalidHeaderValueCharacter)
            #expect(error?.headerName == "X-Value")
            #expect(error?.invalidCharacter == bad)
        }
    }

    @Test(arguments: [
        HTTPHeader(name: "X-Token_1.a~!#$%&'*+^`|", value: "plain"),
        HTTPHeader(name: "Accept", value: "text/html;\tq=0.9"),
        HTTPHeader(name: "X-City", value: "上海"),
        HTTPHeader(name: "X-Empty", value: ""),
        HTTPHeader(name: "X-Padded", value: "  spaced\t"),
        .authorization(bearerToken: "abc.def"),
    ])
    func validHeaderIsAccepted(header: HTTPHeader) throws {
        try header.validate()
        try HTTPHeaders([header]).validate()
    }

    @Test func validatedTrimsOptionalWhitespace() throws {
        let headers: HTTPHeaders = ["X-Padded": " \t value with inner space \t ", "X-Blank": "   "]
        let validated = try headers.validated()
        #expect(validated.description == "X-Padded: value with inner space\nX-Blank: ")
    }

    /// The failure reason of validating one header.
    private func failureReason(name: String, value: String) -> String? {
        #expect(throws: NetworkError.self) { try HTTPHeader(name: name, value: value).validate() }?
            .failureReason
    }

    @Test func errorDescriptionEscapesAndHidesValue() {
        #expect(
            failureReason(name: "Authorization", value: "a\nb")
                == "Invalid value for HTTP header \"Authorization\": it contains a line feed (\\n); header values must not contain CR, LF, NUL or other control characters."
        )
        #expect(
            failureReason(name: "X\r\nY", value: "v")
                == "Invalid HTTP header name \"X\\r\\nY\": it contains a carriage return (\\r), which is not allowed in a header name."
        )
        #expect(
            failureReason(name: "A\0", value: "v")
                == "Invalid HTTP header name \"A\\0\": it contains a NUL character (\\0), which is not allowed in a header name."
        )
        #expect(
            failureReason(name: "A B", value: "v")?
                .hasSuffix("it contains a space, which is not allowed in a header name.") == true)
        #expect(failureReason(name: "é", value: "v")?.contains("the character \"é\" (U+E9)") == true)
        #expect(failureReason(name: "", value: "v") == "Invalid HTTP header: the name is empty.")
        let error = #expect(throws: NetworkError.self) { try HTTPHeader(name: "", value: "v").validate() }
        #expect(
            error?.description
                == "NetworkError.invalidHeader(emptyHeaderName): Invalid HTTP header: the name is empty.")
    }

    @Test func thrownErrorNeverContainsTheValue() {
        do {
            try HTTPHeaders([.authorization(bearerToken: "top-secret\r\n")]).validate()
            Issue.record("expected an error")
        } catch {
            #expect(error.reason == .invalidHeaderValueCharacter)
            #expect(error.invalidCharacter == "\r")
            #expect(error.headerName == "Authorization")
            #expect(!error.description.contains("top-secret"))
            #expect(!error.debugDescription.contains("top-secret"))
        }
    }

    @Test func urlRequestHeadersRoundTrip() throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        request.setValue("old", forHTTPHeaderField: "X-Old")
        request.headers = ["Accept": "json", "X-Trace": "1"]
        #expect(request.value(forHTTPHeaderField: "X-Old") == nil)
        #expect(request.value(forHTTPHeaderField: "accept") == "json")
        #expect(request.headers == ["Accept": "json", "X-Trace": "1"])
        request.headers = [:]
        #expect(request.headers.isEmpty)
    }

    @Test(
        "Field names compare equal ignoring ASCII letter case only",
        arguments: [
            ("Content-Length", "content-length", true), ("X-Api-Key", "x-API-key", true), ("", "", true),
            ("Content-Length", "Content-Type", false), ("a", "b", false), ("[", "{", false),
            ("@", "`", false),
            ("é", "É", false), ("ab", "abc", false),
        ])
    func asciiCaseInsensitiveNames(left: String, right: String, equal: Bool) {
        #expect(left.equalsIgnoringASCIICase(right) == equal)
        #expect(right.equalsIgnoringASCIICase(left) == equal)
    }

    @Test(
        "Values lose leading and trailing spaces and tabs, and nothing else",
        arguments: [
            (" 207\t", "207"), ("207", "207"), ("  ", ""), ("", ""), ("a b", "a b"), ("\t a b \t", "a b"),
        ])
    func trimmingOWS(value: String, trimmed: String) {
        #expect(value.trimmingOWS() == trimmed)
    }
}
