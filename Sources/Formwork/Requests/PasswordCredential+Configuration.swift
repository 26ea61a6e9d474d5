import Foundation

// The rule that picks a session's credential for a challenge; the credential itself is a transport
// value (Transport/PasswordCredential.swift).
extension PasswordCredential {
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
