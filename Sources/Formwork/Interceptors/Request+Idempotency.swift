import Foundation

/// The `Idempotency-Key` request header (IETF httpapi draft "The Idempotency-Key HTTP Header
/// Field"): one key per logical request, so a server can apply a `POST` or `PATCH` once however
/// many times it arrives.
public enum IdempotencyKey {
    /// The header's name, `Idempotency-Key`.
    static let headerName = "Idempotency-Key"

    /// A new key: a random UUID, e.g. `8E03978E-40D5-43E8-BC93-6894A57F9324`.
    /// - Returns: The key.
    public static func make() -> String {
        UUID().uuidString
    }

    /// The header value for `key`: a structured-field string (RFC 8941 §3.3.3), quoted, with `"`
    /// and `\` escaped. `nil` when `key` is empty or holds a character a structured-field string
    /// cannot carry (anything outside printable ASCII).
    /// - Parameter key: The key.
    /// - Returns: The header value, or `nil`.
    static func headerValue(for key: String) -> String? {
        guard !key.isEmpty, key.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
            return nil
        }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }

    /// Whether `request` carries a key.
    static func isPresent(in request: URLRequest?) -> Bool {
        request?.value(forHTTPHeaderField: headerName) != nil
    }
}

extension Request {
    /// Sends an `Idempotency-Key` with every attempt of this request, the same key each time, and
    /// lets ``RetryPolicy`` retry it even when its method is not idempotent (`POST`, `PATCH`).
    ///
    /// The key stands for one logical request: it is made once, here, and sent with every
    /// attempt — retries, reloads (``Request/reload(on:)`` re-sends the same request, so the same
    /// key), and re-sends the transport makes by itself (on Linux, libcurl re-sends a request
    /// whose reused connection closed before any response byte, `POST` included). A server that
    /// honours the header applies the request once and answers repeats with the first response.
    ///
    /// ```swift
    /// request(CreateOrderForm(items: cart))
    ///     .idempotencyKey()            // a new UUID for this order
    ///     .retry(.default)             // now retried on 503, timeouts, lost connections
    /// ```
    ///
    /// Chain it in the statement that creates the request, so the first attempt carries it. To
    /// keep one key across app restarts (an order the user may submit again after a crash), make
    /// it with ``IdempotencyKey/make()``, store it, and pass it here. A key that is empty or not
    /// printable ASCII fails the request with ``NetworkError/Kind/requestBuildFailed``.
    /// - Parameter key: The key; defaults to a new random UUID.
    /// - Returns: The request.
    @discardableResult
    public func idempotencyKey(_ key: String = IdempotencyKey.make()) -> Self {
        core.addAdapter(IdempotencyKeyAdapter(key: key))
        return self
    }
}

/// Sets the request's `Idempotency-Key` on every attempt.
struct IdempotencyKeyAdapter: RequestAdapter {
    /// Why a key cannot be sent.
    struct InvalidKey: Error, CustomStringConvertible {
        let description = "An Idempotency-Key must be non-empty printable ASCII."
    }

    let key: String

    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        guard let value = IdempotencyKey.headerValue(for: key) else { throw InvalidKey() }
        var request = request
        request.setValue(value, forHTTPHeaderField: IdempotencyKey.headerName)
        return request
    }
}
