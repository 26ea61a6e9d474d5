import Foundation

/// A user name and password that answer an HTTP Basic or Digest challenge (a `401` with
/// `WWW-Authenticate`, or a proxy's `407` with `Proxy-Authenticate`).
///
/// Set it on ``Session/Credentials/server`` (or ``Session/Credentials/proxy``).
/// It is a plain `Sendable` value, so a configuration that holds it stays `Sendable` on every
/// platform; Formwork hands URLSession a `URLCredential` that is never stored.
public struct PasswordCredential: Sendable, Equatable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The credential URLSession takes, kept for this one answer only.
    var urlCredential: URLCredential {
        URLCredential(user: user, password: password, persistence: .none)
    }
}
