/// An error a person can read: a code (to tell success from failure) and a message.
///
/// `successCodes` lists the codes that mean "it worked" (or that the app handles itself in
/// `.warn`'s `onSuccess`); any other code is a failure whose message is shown.
public protocol Errorable: Sendable {
    /// The codes that count as success, e.g. `["200"]` or `["0"]`. Compared as text: a JSON
    /// number `200` and a string `"200"` both match `"200"`.
    static var successCodes: [String] { get }
    /// The code, if any.
    var code: String? { get }
    /// The message to show, if any.
    var message: String? { get }
}

/// A plain string is an error whose message is itself: what `.warn` shows for failures that do
/// not come from the server's body (no network, a bad status, an unreadable response).
extension String: Errorable {
    /// None: a plain message is never a success.
    public static var successCodes: [String] { [] }
    /// None.
    public var code: String? { nil }
    /// The string itself.
    public var message: String? { self }
}

/// An error read from the JSON body at two key paths, as `.warn` and `.inform` do.
///
/// ```swift
/// // {"data": {"code": "200", "message": "OK", ...}}
/// struct WeatherError: JSONErrorable {
///     static let successCodes = ["200"]
///     static let codePath = "data.code"
///     static let messagePath = "data.message"
///     let code: String?
///     let message: String?
/// }
/// ```
///
/// The code may be a JSON string or number (integral numbers read as `"200"`, never `"200.0"`);
/// the message a string (or a number).
public protocol JSONErrorable: Errorable {
    /// Where the code sits, e.g. `"data.code"`. Defaults to `"code"`.
    static var codePath: String { get }
    /// Where the message sits, e.g. `"data.message"`. Defaults to `"message"`.
    static var messagePath: String { get }
    /// Creates the error from what the body held.
    /// - Parameters:
    ///   - code: The code, as text.
    ///   - message: The message, if the body had one.
    init(code: String?, message: String?)
}

extension JSONErrorable {
    /// `"code"`.
    public static var codePath: String { "code" }
    /// `"message"`.
    public static var messagePath: String { "message" }
}
