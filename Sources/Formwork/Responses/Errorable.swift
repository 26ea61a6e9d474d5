/// An error a person can read: a code and a message.
///
/// Which codes mean "it worked" is said by a ``JSONErrorable``'s ``JSONErrorable/envelope``.
public protocol Errorable: Sendable {
    /// The code, if any.
    var code: String? { get }
    /// The message to show, if any.
    var message: String? { get }
}

/// A plain string is an error whose message is itself: what `.warn` shows for failures that do
/// not come from the server's body (no network, a bad status, an unreadable response).
extension String: Errorable {
    /// None.
    public var code: String? { nil }
    /// The string itself.
    public var message: String? { self }
}

/// An error read from the JSON body, as `.warn` and `.inform` do: its ``envelope`` says where the
/// code and the message sit and which codes mean success (or that the app handles itself in
/// `.warn`'s `onSuccess`); any other code is a failure whose message is shown.
///
/// ```swift
/// // {"data": {"code": "200", "message": "OK", ...}}
/// struct WeatherError: JSONErrorable {
///     static let envelope = Envelope(
///         codePath: "data.code", messagePath: "data.message", successCodes: ["200"])
///     let code: String?
///     let message: String?
/// }
/// ```
///
/// The same ``Envelope`` value serves `decodeEnvelope` and `responseEnvelope`, so one API's
/// shape is written once.
///
/// The code may be a JSON string or number (integral numbers read as `"200"`, never `"200.0"`);
/// the message a string (or a number).
public protocol JSONErrorable: Errorable {
    /// Where the code and the message sit in the body, and which codes mean success (compared as
    /// text: a JSON number `200` and a string `"200"` both match `"200"`).
    static var envelope: Envelope { get }
    /// Creates the error from what the body held.
    /// - Parameters:
    ///   - code: The code, as text.
    ///   - message: The message, if the body had one.
    init(code: String?, message: String?)
}
