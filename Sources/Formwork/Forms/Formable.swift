import Foundation

/// A small value that describes one API call: where it goes and how.
///
/// Only ``url`` is required; everything else has a default from a protocol extension. An app
/// can give all of its forms the same headers the MBNetwork way, in its own module:
///
/// ```swift
/// extension Formable {
///     var headers: HTTPHeaders { ["accessToken": Credentials.token] }
/// }
/// ```
///
/// A form need not be `Sendable`: `request`, `send`, `download` and `upload` read it once, on the
/// caller's actor, when they are called, and every attempt (retries and reloads too) sends what
/// was read then. So a form declared in an app module that defaults to the main actor (the Xcode
/// app template) needs no `nonisolated`. Values that change between attempts, such as a token
/// that is refreshed, belong in a ``RequestAdapter`` or an ``AuthenticationInterceptor``.
public protocol Formable {
    /// The absolute http(s) URL. An invalid one fails the request with ``NetworkError/Kind/invalidURL``.
    var url: String { get }
    /// The HTTP method. Defaults to `.get` (request and download forms) or `.post` (upload forms).
    var method: HTTPMethod { get }
    /// Headers for this call. They win over the session's default headers. Defaults to none.
    var headers: HTTPHeaders { get }
    /// The idle timeout in seconds: the longest one attempt may go without any sign of life
    /// (from its start to the response's headers, then between body bytes). Each attempt (retry,
    /// reload) gets it anew; it is not a limit on the whole request, which is what
    /// ``Request/totalTimeout(_:)`` and ``Session/Timeouts/total`` are for. It wins over the
    /// session's ``Session/Timeouts/idle``. Precise to about 0.1 s on every platform (corelibs
    /// URLSession truncates timeouts to whole seconds; Formwork watches the rest itself).
    /// Defaults to `nil`: the session's.
    var idleTimeout: TimeInterval? { get }
    /// How this call uses the session's ``HTTPCache`` (``Session/Configuration/cache``). Only
    /// data requests are cached; downloads and uploads ignore it. Defaults to
    /// ``CachePolicy/useProtocol``.
    var cachePolicy: CachePolicy { get }
    /// Whether this call follows the server's redirects (see ``RedirectPolicy``): it wins over
    /// the session's ``Session/Configuration/redirectPolicy``. A form with a policy of its own is
    /// not coalesced with identical requests. Defaults to `nil`: the session's.
    var redirectPolicy: RedirectPolicy? { get }
}

extension Formable {
    /// `.get`.
    public var method: HTTPMethod { .get }
    /// No headers.
    public var headers: HTTPHeaders { HTTPHeaders() }
    /// `nil`: use the session's ``Session/Timeouts/idle``.
    public var idleTimeout: TimeInterval? { nil }
    /// ``CachePolicy/useProtocol``: HTTP's own rules.
    public var cachePolicy: CachePolicy { .useProtocol }
    /// `nil`: the session's ``Session/Configuration/redirectPolicy``.
    public var redirectPolicy: RedirectPolicy? { nil }
}

/// A form with parameters: the kind of form `request(_:)` sends.
public protocol RequestFormable: Formable {
    /// The parameters. Defaults to none.
    var parameters: Parameters { get }
    /// How the parameters are encoded. Defaults to ``ParameterEncoding/url``: a query string for
    /// GET, HEAD and DELETE, a form body otherwise.
    var encoding: ParameterEncoding { get }
    /// Whether this request may share the network request of an identical one already in flight
    /// (same final URL, method and headers, after adapters): the server then sees one request, and
    /// each caller still gets its own hooks, validation, decoding, retries and cancellation. Only
    /// GET and HEAD requests without a body are ever coalesced, never downloads or uploads; the
    /// session can turn it off for all its requests (``Session/Configuration/coalescesRequests``).
    /// Defaults to `true`. Return `false` for a call that must reach the server each time it is
    /// made (e.g. a poll whose every answer matters).
    var coalescesRequests: Bool { get }
    /// A body sent as it is, with its content type (see ``RequestBody``). When set, it is the
    /// request's body and the ``parameters`` go to the query string, whatever the ``encoding``
    /// says; the session's or the form's own `Content-Type` header wins over the body's. GET and
    /// HEAD requests carry no body: use another ``Formable/method``. Defaults to `nil`: the body,
    /// if any, comes from the parameters and their encoding.
    var body: RequestBody? { get }
}

extension RequestFormable {
    /// No parameters.
    public var parameters: Parameters { [:] }
    /// ``ParameterEncoding/url``.
    public var encoding: ParameterEncoding { .url }
    /// `true`: identical GET and HEAD requests in flight share one network request.
    public var coalescesRequests: Bool { true }
    /// `nil`: no body of its own.
    public var body: RequestBody? { nil }
}

/// A form that knows the type of its response, so `send(_:)` can return it directly.
///
/// ```swift
/// struct WeatherForm: TypedFormable {
///     typealias Response = Weather
///     let city: String
///     var url: String { "https://api.example.com/weather" }
///     var parameters: Parameters { ["city": city] }
///     var keyPath: String? { "data" }
/// }
/// let weather = try await send(WeatherForm(city: "shanghai"))
/// ```
public protocol TypedFormable: RequestFormable {
    /// The type the response body (at ``keyPath``) decodes into.
    associatedtype Response: Decodable & Sendable
    /// Where in the JSON body the response sits, e.g. `"data"` or `"data.list"`. Defaults to `nil`:
    /// the whole body.
    var keyPath: String? { get }
}

extension TypedFormable {
    /// `nil`: decode the whole body.
    public var keyPath: String? { nil }
}
