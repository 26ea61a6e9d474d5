import Foundation

/// A user name and password that answer an HTTP Basic or Digest challenge (a `401` with
/// `WWW-Authenticate`, or a proxy's `407` with `Proxy-Authenticate`).
///
/// Set it on ``Session/Configuration/credential`` (or ``Session/Configuration/proxyCredential``).
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

    /// The credential that answers a password challenge, by Formwork's rule: the configured one,
    /// once; nil when none applies or the server refused it already (the `401`/`407` is then
    /// delivered as an ordinary response, so validation, `.warn`, retriers and
    /// ``AuthenticationInterceptor`` see it at once).
    /// - Parameters:
    ///   - isProxy: Whether a proxy asks (a `407`).
    ///   - previousFailures: How many answers to this challenge failed already.
    ///   - configuration: The session's configuration, which holds the credentials.
    static func answering(
        isProxy: Bool, previousFailures: Int, configuration: Session.Configuration
    ) -> PasswordCredential? {
        guard previousFailures == 0 else { return nil }
        return isProxy ? configuration.proxyCredential : configuration.credential
    }
}
