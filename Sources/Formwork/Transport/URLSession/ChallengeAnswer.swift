import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the built-in transport answers a `URLSession` authentication challenge.
///
/// - Basic and Digest (for a server, or for a proxy): the credential the task's events give
///   (Formwork's rule: the configured one, once, see `PasswordCredential.answering`); without
///   one, the `401`/`407` is delivered as an ordinary response.
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
    ///   - credential: The credential that answers a password challenge, if any (asked only for one).
    init(method: String, credential: () -> PasswordCredential?) {
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
        self = credential().map { .useCredential($0) } ?? .deliverResponse
    }

    /// The methods a user name and password answer.
    private static let passwordMethods: Set<String> = [
        NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
    ]
}
