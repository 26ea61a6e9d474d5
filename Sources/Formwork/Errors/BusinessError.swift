import Foundation

/// A failure reported by the server inside a successful-looking body, e.g.
/// `{"code": 1001, "msg": "Insufficient balance", "data": null}`.
///
/// Formwork wraps it in a ``NetworkError`` of kind ``NetworkError/Kind/business``; read it back
/// with ``NetworkError/businessCode`` and ``NetworkError/businessMessage``.
public struct BusinessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's code, as text (JSON numbers are turned into their decimal text).
    public let code: String?
    /// The server's message, if any.
    public let message: String?

    /// Creates a business error.
    /// - Parameters:
    ///   - code: The server's code.
    ///   - message: The server's message.
    public init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String {
        "\(code ?? "no code"): \(message ?? "no message")"
    }
}

extension NetworkError {
    /// The server's business code, when this is a ``Kind/business`` error.
    public var businessCode: String? { (underlyingError as? BusinessError)?.code }

    /// The server's business message, when this is a ``Kind/business`` error.
    public var businessMessage: String? { (underlyingError as? BusinessError)?.message }
}
