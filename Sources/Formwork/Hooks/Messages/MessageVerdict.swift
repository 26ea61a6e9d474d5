import Foundation

/// What `.warn` and `.inform` make of one attempt's outcome, decided off the main actor.
///
/// - A cancelled request: nothing.
/// - A transport failure, or a request that was never sent: the short ``NetworkError/userMessage``.
/// - A 2xx response: the code at `E.envelope.codePath` decides — a success code is a success, any other
///   code a failure with the server's message at `E.envelope.messagePath`. A body that cannot be read
///   there is a failure saying the response could not be read (never silence). A 2xx without a
///   body in memory (a 204, a HEAD, a download) is a success without a code.
/// - Any other response (a 4xx/5xx, or one a validator refused): a readable code that is not a
///   success code shows the server's message; otherwise the status message.
enum MessageVerdict<E: JSONErrorable>: Sendable {
    /// Say nothing.
    case silent
    /// The server said it worked.
    case success(E)
    /// Show this.
    case failure(any Errorable)

    /// Classifies an outcome.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - bodyInMemory: `false` for requests whose body goes to disk (downloads).
    ///   - catalog: The words for failures that are not the server's.
    init(_ outcome: RequestOutcome, bodyInMemory: Bool, catalog: MessageCatalog = .current) {
        if let error = outcome.error {
            if error.isCancelled {
                self = .silent
                return
            }
            if error.isNetworkFailure || error.kind.isInvalidRequest || outcome.response == nil {
                self = .failure(error.userMessage(using: catalog))
                return
            }
        }
        guard let response = outcome.response else {
            // No error and no response cannot happen; treat it as unreadable rather than stay silent.
            self = .failure(catalog.unreadableResponse)
            return
        }
        let body = outcome.data ?? Data()
        let isSuccess = outcome.error == nil && (200..<300).contains(response.statusCode)
        if isSuccess, !bodyInMemory || (body.isEmpty && ResponseSerialization.allowsEmptyBody(outcome)) {
            self = .success(E(code: nil, message: nil))
            return
        }
        let envelope = E.envelope
        let code = JSONScalar.read(envelope.codePath, in: body)
        let serverMessage = JSONScalar.read(envelope.messagePath, in: body).text.flatMap {
            $0.isEmpty ? nil : $0
        }
        if isSuccess {
            self = Self.classify2xx(code, serverMessage, outcome, catalog)
        } else if let code = code.text, !envelope.successCodes.contains(code) {
            let fallback = Self.statusError(outcome, response).userMessage(using: catalog)
            self = .failure(E(code: code, message: serverMessage ?? fallback))
        } else {
            self = .failure(Self.statusError(outcome, response).userMessage(using: catalog))
        }
    }

    private static func classify2xx(
        _ code: JSONScalar.Reading, _ message: String?, _ outcome: RequestOutcome, _ catalog: MessageCatalog
    ) -> MessageVerdict {
        let unreadable: (NetworkError.Kind, String)
        switch code {
        case .text(let code) where E.envelope.successCodes.contains(code):
            return .success(E(code: code, message: message))
        case .text(let code):
            let fallback = NetworkError(
                .business, failureReason: "The server answered code \(code).",
                details: .init(businessCode: code))
            return .failure(E(code: code, message: message ?? fallback.userMessage(using: catalog)))
        case .absent(let reason):
            unreadable = (.keyPathNotFound, "The JSON body has no code: \(reason).")
        case .notScalar:
            unreadable = (
                .decodingFailed, "The code at \"\(E.envelope.codePath)\" is not a string or a number."
            )
        case .malformed(let reason):
            unreadable = (.invalidJSON, "The body is not valid JSON (\(reason)).")
        }
        let error = NetworkError(
            unreadable.0, failureReason: unreadable.1, request: outcome.request,
            response: outcome.response, data: outcome.data)
        return .failure(error.userMessage(using: catalog))
    }

    /// The outcome's own error, or a status error for a non-2xx that validation let through.
    private static func statusError(_ outcome: RequestOutcome, _ response: HTTPURLResponse) -> NetworkError {
        outcome.error
            ?? NetworkError(
                .unacceptableStatusCode,
                failureReason: "The response status \(response.statusCode) is not a success.",
                request: outcome.request, response: response, data: outcome.data)
    }
}
