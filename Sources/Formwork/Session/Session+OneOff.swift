import Foundation

extension Session {
    /// Sends a one-off request without declaring a form type: for scripts, tests and trying an API
    /// out. It follows the same rules as a form with the same members (see ``RequestFormable``):
    ///
    /// ```swift
    /// let user = try await Session.default.request("https://api.example.com/users/1").decode(User.self)
    /// let created = Session.default.request(
    ///     "https://api.example.com/users", method: .post, parameters: ["name": "Ada"], encoding: .json)
    /// ```
    ///
    /// A relative `url` is resolved against ``Configuration/baseURL``. Declare a form once the call
    /// is used in more than one place: it names the call and keeps its parts together.
    /// - Parameters:
    ///   - url: The URL, absolute or relative to the session's base URL.
    ///   - method: The HTTP method; defaults to `.get`.
    ///   - parameters: The parameters; defaults to none.
    ///   - encoding: How the parameters are encoded; defaults to ``ParameterEncoding/url``.
    ///   - headers: Headers for this call, over the session's; defaults to none.
    ///   - body: A body sent as it is (the parameters then go to the query string); defaults to
    ///     `nil`.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request, started as ``request(_:isolation:)`` starts one.
    @discardableResult
    public func request(
        _ url: String, method: HTTPMethod = .get, parameters: Parameters = [:],
        encoding: ParameterEncoding = .url,
        headers: HTTPHeaders = [:], body: RequestBody? = nil, isolation: isolated (any Actor)? = #isolation
    ) -> DataRequest {
        request(
            OneOffForm(
                url: url, method: method, headers: headers, parameters: parameters, encoding: encoding,
                body: body),
            isolation: isolation)
    }
}

extension Requestable {
    /// Sends a one-off request without declaring a form type (see
    /// ``Session/request(_:method:parameters:encoding:headers:body:isolation:)``).
    /// - Parameters:
    ///   - url: The URL, absolute or relative to the session's base URL.
    ///   - method: The HTTP method; defaults to `.get`.
    ///   - parameters: The parameters; defaults to none.
    ///   - encoding: How the parameters are encoded; defaults to ``ParameterEncoding/url``.
    ///   - headers: Headers for this call, over the session's; defaults to none.
    ///   - body: A body sent as it is; defaults to `nil`.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request.
    @discardableResult
    public func request(
        _ url: String, method: HTTPMethod = .get, parameters: Parameters = [:],
        encoding: ParameterEncoding = .url,
        headers: HTTPHeaders = [:], body: RequestBody? = nil, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    ) -> DataRequest {
        session.request(
            url, method: method, parameters: parameters, encoding: encoding, headers: headers, body: body,
            isolation: isolation)
    }
}

/// The form a one-off request is read from: the members given, every other one at its default.
private struct OneOffForm: RequestFormable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let parameters: Parameters
    let encoding: ParameterEncoding
    let body: RequestBody?
}
