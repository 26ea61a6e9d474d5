import Foundation

/// Turns a form into a `URLRequest`, refusing bad input with a clear ``NetworkError``.
enum URLRequestBuilder {
    /// The form's URL text as a URL: trimmed, resolved against `baseURL` when it is relative,
    /// checked and percent-encoded the same way on every platform (see `URLReference` and
    /// `URLText`). The result must be an absolute http(s) URL with a host.
    static func url(from string: String, baseURL: String?) throws(NetworkError) -> URL {
        try URLText.url(from: text(of: string, baseURL: baseURL))
    }

    /// The form's URL text, trimmed and resolved against `baseURL` (RFC 3986, section 5) when it
    /// has no scheme. Without a base URL the text is used as it is, at no cost.
    static func text(of string: String, baseURL: String?) throws(NetworkError) -> String {
        let text = trimmingWhitespace(string)
        guard let baseURL else { return text }
        return try URLReference.resolve(text, against: trimmingWhitespace(baseURL))
    }

    /// `string` without leading and trailing `CharacterSet.whitespaces` (spaces and tabs).
    ///
    /// `trimmingCharacters(in:)` costs some 20,000 instructions a call on Linux, a tenth of
    /// Formwork's own work for a small request, so it only runs when an end is not plainly
    /// something else (an ASCII character other than a space or a tab).
    static func trimmingWhitespace(_ string: String) -> String {
        func isPlainlyNotWhitespace(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar, scalar.isASCII else { return false }
            return scalar != " " && scalar != "\t"
        }
        if isPlainlyNotWhitespace(string.unicodeScalars.first),
            isPlainlyNotWhitespace(string.unicodeScalars.last)
        {
            return string
        }
        return string.trimmingCharacters(in: .whitespaces)
    }

    /// Checks a timeout: a positive, finite number of seconds.
    ///
    /// The `URLRequest` keeps the precise value, so adapters see what the form asked for;
    /// ``RequestCore`` hands URLSession whole seconds and watches the rest itself
    /// (see ``IdleTimeout``: corelibs truncates timeouts to whole seconds).
    static func timeout(_ seconds: TimeInterval, request: URLRequest) throws(NetworkError) -> TimeInterval {
        guard seconds.isFinite, seconds > 0 else {
            throw NetworkError(
                .requestBuildFailed,
                failureReason: "The timeout must be a positive number of seconds, not \(seconds).",
                request: request)
        }
        return seconds
    }

    /// The request for a form without parameters (downloads and uploads build on this).
    static func baseRequest(
        for form: some Formable, configuration: Session.Configuration
    ) throws(NetworkError) -> URLRequest {
        try baseRequest(
            for: form, url: try url(from: form.url, baseURL: configuration.baseURL),
            configuration: configuration)
    }

    /// The request for a form, at `url` (the form's, checked, perhaps with a query added).
    static func baseRequest(
        for form: some Formable, url: URL, configuration: Session.Configuration
    ) throws(NetworkError) -> URLRequest {
        var request = URLRequest(url: url)
        let method = form.method.rawValue
        if method != "GET" {
            // A new URLRequest's method is already GET; the setter costs ~8,000 instructions on Linux.
            request.httpMethod = method
        }
        let idle = try timeout(form.idleTimeout ?? configuration.timeouts.idle, request: request)
        // Set only when it differs from a new request's 60 s: on Linux each change copies the request.
        if idle != request.timeoutInterval { request.timeoutInterval = idle }
        var headers = configuration.headers.merging(form.headers)
        if let userAgent = configuration.userAgent, headers.value(for: "User-Agent") == nil {
            headers.update(name: "User-Agent", value: userAgent)
        }
        do {
            try headers.validate()
        } catch {
            throw error.with(request: request)
        }
        request.headers = headers
        return request
    }

    /// The request for a form with parameters, encoded as the form says.
    static func request(
        for form: some RequestFormable, configuration: Session.Configuration
    ) throws(NetworkError) -> URLRequest {
        try request(for: form, configuration: configuration, memo: nil).request
    }

    /// The request for a form with parameters, encoded as the form says.
    /// - Parameters:
    ///   - form: The form.
    ///   - configuration: The session's configuration.
    ///   - memo: The session's memo of the requests its forms built, if the caller keeps one.
    /// - Returns: The request, and whether every header it carries was checked on the way (it then
    ///   needs no ``FinalRequestCheck`` unless an adapter changes it).
    static func request(
        for form: some RequestFormable, configuration: Session.Configuration, memo: RequestMemo?
    ) throws(NetworkError) -> (request: URLRequest, headersChecked: Bool) {
        let (encoding, parameters) = (form.encoding, form.parameters)
        // Parameters bound for the query string go into the URL before the URLRequest is made:
        // changing a URLRequest's URL afterwards costs as much again (~12,000 instructions on
        // Linux). The form's URL, checked and encoded, gets the query as text and is parsed once
        // (each parse costs ~3,500; a query appended to a text that does not parse cannot make
        // it parse); or the whole request comes from the session's memo. Any failure here takes
        // the general path below, which reports it as before. The request made here carries only
        // the headers `baseRequest` checked.
        if let query = try? encoding.queryString(for: parameters, method: form.method.rawValue) {
            let key = memo.map { _ in
                RequestMemo.Key(
                    text: form.url, query: query, method: form.method.rawValue, idleTimeout: form.idleTimeout,
                    headers: form.headers)
            }
            if let memo, let key, let request = memo.request(for: key) { return (request, true) }
            if let text = try? URLText.encoded(text(of: form.url, baseURL: configuration.baseURL)),
                let withQuery = URL(string: ParameterEncoding.text(text, appendingQuery: query)),
                let request = try? baseRequest(for: form, url: withQuery, configuration: configuration)
            {
                if let memo, let key { memo.remember(request, for: key) }
                return (request, true)
            }
        }
        let request = try baseRequest(for: form, configuration: configuration)
        return (try encoding.encode(request, with: parameters), false)  // a failure keeps `request`
    }
}
