/// An HTTP request method, such as `GET` or `POST`.
///
/// Methods are case-sensitive (RFC 9110 §9.1), so the raw value is kept exactly as given:
/// `HTTPMethod(rawValue: "get")` is not `.get`. A string literal works wherever a method is
/// expected: `var method: HTTPMethod { "PROPFIND" }`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token sent on the request line, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its token, kept exactly as given.
    /// - Parameter rawValue: The method token, e.g. `"GET"` or `"PROPFIND"`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from a string literal, kept exactly as written.
    /// - Parameter value: The method token.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The method token, e.g. `"GET"`.
    public var description: String { rawValue }

    /// `GET`: transfer a representation of the target resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: have the target resource process the enclosed content.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace the target resource with the enclosed content.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: apply partial modifications to the target resource (RFC 5789).
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove the target resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET`, but the response has no content.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: describe the communication options for the target resource.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: perform a message loop-back test along the path to the target resource.
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`: establish a tunnel to the server identified by the target resource.
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    /// The methods whose requests may be repeated with the same effect as sending them once
    /// (RFC 9110 §9.2.2): `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`. The one list
    /// Formwork keeps: ``isIdempotent`` and ``RetryPolicy``'s default methods read it.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2):
    /// whether it is one of ``idempotentMethods``.
    ///
    /// The default retry policy only retries idempotent methods, or requests that carry an
    /// `Idempotency-Key` (see `idempotencyKey(_:)`).
    public var isIdempotent: Bool {
        Self.idempotentMethods.contains(self)
    }
}
