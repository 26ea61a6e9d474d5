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
}

/// How Formwork answers an authentication challenge, decided from the challenge alone.
///
/// - Basic and Digest (for a server, or for a proxy): the configured credential, once; when none
///   applies or it was already refused (`previousFailureCount > 0`), the `401`/`407` is delivered
///   as an ordinary response, so validation, `.warn`, retriers and ``AuthenticationInterceptor``
///   see it at once.
/// - Anything else (server trust, client certificates, NTLM, Negotiate): the system's default.
enum ChallengeAnswer: Equatable {
    /// Let URLSession do what it does without a delegate.
    case performDefaultHandling
    /// Answer with this credential.
    case useCredential(PasswordCredential)
    /// Answer with nothing: the challenge's response is the outcome.
    case deliverResponse

    /// The answer to a challenge.
    /// - Parameters:
    ///   - method: The protection space's authentication method, e.g. `NSURLAuthenticationMethodHTTPBasic`.
    ///   - isProxy: Whether a proxy asks (a `407`).
    ///   - previousFailureCount: How many answers to this challenge failed already.
    ///   - configuration: The session's configuration, which holds the credentials.
    init(method: String, isProxy: Bool, previousFailureCount: Int, configuration: Session.Configuration) {
        guard Self.passwordMethods.contains(method) else {
            self = .performDefaultHandling
            return
        }
        #if canImport(FoundationNetworking)
            // corelibs traps when asked to answer Digest (it never offers it, but never risk it).
            guard method == NSURLAuthenticationMethodHTTPBasic else {
                self = .deliverResponse
                return
            }
        #endif
        let credential = isProxy ? configuration.proxyCredential : configuration.credential
        if let credential, previousFailureCount == 0 {
            self = .useCredential(credential)
        } else {
            self = .deliverResponse
        }
    }

    /// The methods a user name and password answer.
    private static let passwordMethods: Set<String> = [
        NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
    ]
}
