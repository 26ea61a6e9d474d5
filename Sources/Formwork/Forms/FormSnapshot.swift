import Foundation

/// A form as it was when it was sent: read once, on the caller's actor, into a `Sendable` value
/// that the request builds from on any thread, for every attempt (retries and reloads included).
///
/// This is why forms need not be `Sendable`: a form declared in a module that defaults to the main
/// actor has a main-actor conformance, which may only be used there. `request`, `send`, `download`
/// and `upload` read it synchronously on the caller's actor, and only this snapshot leaves it.
struct FormSnapshot: RequestFormable, Sendable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let idleTimeout: TimeInterval?
    let cachePolicy: CachePolicy
    let redirectPolicy: RedirectPolicy?
    let parameters: Parameters
    let encoding: ParameterEncoding
    let coalescesRequests: Bool
    let body: RequestBody?

    /// Reads a form with parameters.
    /// - Parameter form: The form, read on the caller's actor.
    init(_ form: some RequestFormable) {
        let body = form.body
        self.init(
            form, parameters: form.parameters, encoding: body.map(ParameterEncoding.raw) ?? form.encoding,
            coalescesRequests: form.coalescesRequests, body: body)
    }

    /// Reads a form without parameters (uploads), keeping the defaults for them.
    /// - Parameter form: The form, read on the caller's actor.
    init(base form: some Formable) {
        self.init(form, parameters: [:], encoding: .url, coalescesRequests: false, body: nil)
    }

    private init(
        _ form: some Formable, parameters: Parameters, encoding: ParameterEncoding, coalescesRequests: Bool,
        body: RequestBody?
    ) {
        self.url = form.url
        self.method = form.method
        self.headers = form.headers
        self.idleTimeout = form.idleTimeout
        self.cachePolicy = form.cachePolicy
        self.redirectPolicy = form.redirectPolicy
        self.parameters = parameters
        self.encoding = encoding
        self.coalescesRequests = coalescesRequests
        self.body = body
    }
}
