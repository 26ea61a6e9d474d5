import Foundation

/// The wrapper many APIs put around every answer, `{"code": 0, "message": "success", "data": ...}`
/// (a `{code, msg, data}` shape): where its code and message sit and which codes mean success.
///
/// Decode through it with `decodeEnvelope(_:atKeyPath:envelope:)`,
/// `responseEnvelope(of:atKeyPath:envelope:completionHandler:)` or, for SwiftUI,
/// `bindEnvelope(to:atKeyPath:envelope:)`: all three take the key path (default `"data"`) before
/// the envelope (default ``standard``). When the code is not a success code they fail with a
/// ``NetworkError`` of kind ``NetworkError/Kind/business`` carrying the server's code and message
/// (``NetworkError/businessCode``, ``NetworkError/businessMessage``), and otherwise decode `data`,
/// `data.list`, or nothing (`EmptyBody`).
///
/// A ``JSONErrorable`` (what `.warn` and `.inform` read) describes its body with an envelope too,
/// so one value serves both: `decodeEnvelope(T.self, envelope: APIError.envelope)`. The message is
/// read at `"message"` unless told otherwise; an API that names it `msg` says so:
///
/// ```swift
/// extension Envelope {
///     static let api = Envelope(messagePath: "msg", successCodes: ["0"])    // {code, msg, data}
/// }
/// let articles = try await request(ArticlesForm()).decodeEnvelope([Article].self, atKeyPath: "data.list", envelope: .api)
/// _ = try await request(LogoutForm()).decodeEnvelope(EmptyBody.self, envelope: .api)   // only the code
/// ```
public struct Envelope: Sendable, Hashable {
    /// Where the code sits, e.g. `"code"`.
    public var codePath: String
    /// Where the message sits, e.g. `"message"` or `"msg"`.
    public var messagePath: String
    /// The codes that mean success, compared as text (`0` and `"0"` both match `"0"`).
    public var successCodes: [String]

    /// Describes an envelope.
    /// - Parameters:
    ///   - codePath: Where the code sits; defaults to `"code"`.
    ///   - messagePath: Where the message sits; defaults to `"message"`. Pass `"msg"` for a
    ///     `{code, msg, data}` API.
    ///   - successCodes: The codes that mean success.
    public init(codePath: String = "code", messagePath: String = "message", successCodes: [String]) {
        self.codePath = codePath
        self.messagePath = messagePath
        self.successCodes = successCodes
    }

    /// `{"code": 0, "message": "...", "data": ...}` with `0` as the only success code: the code at
    /// `"code"`, the message at `"message"`.
    public static let standard = Envelope(successCodes: ["0"])

    /// Checks an outcome's envelope: `nil` when the code is a success code, else why not.
    ///
    /// An error status (or a refused response) whose body holds a failure code becomes a
    /// business error too, so the server's message wins over the bare status; every other
    /// failure passes through unchanged.
    func failure(in outcome: RequestOutcome) -> NetworkError? {
        let data = outcome.data ?? Data()
        if let error = outcome.error {
            guard error.kind == .unacceptableStatusCode || error.kind == .validationFailed,
                let code = JSONScalar.read(codePath, in: data).text, !successCodes.contains(code)
            else { return error }
            return business(code: code, in: outcome)
        }
        let unreadable: (NetworkError.Kind, String)
        switch JSONScalar.read(codePath, in: data) {
        case .text(let code) where successCodes.contains(code):
            return nil
        case .text(let code):
            return business(code: code, in: outcome)
        case _ where data.isEmpty:
            unreadable = (.emptyResponse, "The body is empty: there is no envelope to read.")
        case .absent(let reason):
            unreadable = (.keyPathNotFound, "The envelope has no code: \(reason).")
        case .notScalar:
            unreadable = (
                .decodingFailed, "The envelope's code at \"\(codePath)\" is not a string or a number."
            )
        case .malformed(let reason):
            unreadable = (.invalidJSON, "The body is not valid JSON (\(reason)).")
        }
        return NetworkError(
            unreadable.0, failureReason: unreadable.1, request: outcome.request, response: outcome.response,
            data: outcome.data)
    }

    private func business(code: String, in outcome: RequestOutcome) -> NetworkError {
        let message = JSONScalar.read(messagePath, in: outcome.data ?? Data()).text.flatMap {
            $0.isEmpty ? nil : $0
        }
        return NetworkError(
            .business,
            failureReason: "The server answered code \(code)\(message.map { ": \($0)" } ?? "").",
            details: .init(businessCode: code, businessMessage: message),
            request: outcome.request, response: outcome.response, data: outcome.data)
    }

    /// Checks the envelope, then decodes `T` at `keyPath` (nothing at all for `EmptyBody`).
    func decode<T: Decodable>(
        _ type: T.Type, _ outcome: RequestOutcome, keyPath: String?, decoder: JSONDecoder
    ) -> Result<T, NetworkError> {
        if let failure = failure(in: outcome) { return .failure(failure) }
        if let empty = EmptyBody() as? T { return .success(empty) }
        return ResponseSerialization.decode(type, outcome, keyPath: keyPath, decoder: decoder)
    }
}
