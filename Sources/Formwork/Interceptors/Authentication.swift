import Foundation

/// A credential an ``Authenticator`` applies to requests, e.g. an OAuth access token.
public protocol AuthenticationCredential: Sendable {
    /// `true` when the credential is known to be expired (e.g. by its expiry date): it is refreshed
    /// before the next request is sent rather than after a 401.
    var requiresRefresh: Bool { get }
}

/// Applies and refreshes a credential for an ``AuthenticationInterceptor``.
public protocol Authenticator: Sendable {
    /// The credential type.
    associatedtype Credential: AuthenticationCredential

    /// Puts the credential on a request (e.g. an `Authorization` header), as an adapter would
    /// (see ``RequestAdapter``): a header value that cannot be sent, such as a token with a
    /// trailing newline, fails the request with ``NetworkError/Kind/invalidHeader``.
    /// - Parameters:
    ///   - credential: The credential.
    ///   - request: The request to change.
    func apply(_ credential: Credential, to request: inout OutgoingRequest)

    /// Gets the first credential, when the interceptor has none (it was created with `nil`): from
    /// the keychain, a sign-in, a token endpoint. Called when a request needs the credential,
    /// once for any number of requests that need it at the same time, before any of them is sent;
    /// called again by a later request when it returned `nil` or threw. Defaults to `nil`.
    /// - Returns: The credential, or `nil` to send requests without one.
    /// - Throws: Any error: the requests waiting for it fail with it (as an adapter's error).
    func fetchCredential() async throws -> Credential?

    /// Gets a new credential (e.g. with a refresh token). Called once for any number of requests
    /// that failed at the same time.
    /// - Parameter credential: The credential that stopped working.
    /// - Returns: The new credential.
    /// - Throws: Any error: the waiting requests then fail with their original error.
    func refresh(_ credential: Credential) async throws -> Credential

    /// Whether a failure means the credential stopped working. Defaults to a 401 status.
    /// - Parameter error: The failure.
    /// - Returns: `true` to refresh and replay.
    func isAuthenticationFailure(_ error: NetworkError) -> Bool

    /// Whether `request` was sent with `credential` (so a 401 on it means `credential` is bad,
    /// rather than an older one already replaced).
    /// - Parameters:
    ///   - request: The request that failed.
    ///   - credential: The current credential.
    /// - Returns: `true` if the request carried this credential.
    func isRequest(_ request: URLRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    /// No credential: requests go without one until the interceptor is given one.
    /// - Returns: `nil`.
    public func fetchCredential() async throws -> Credential? { nil }

    /// A 401.
    public func isAuthenticationFailure(_ error: NetworkError) -> Bool {
        error.statusCode == 401
    }
}

/// Adds a credential to every request and, when requests fail because it expired, refreshes it
/// **once** for all of them, then replays them with the new one.
///
/// Use it as both the adapter and the retrier of a session:
///
/// ```swift
/// let auth = AuthenticationInterceptor(authenticator: TokenAuthenticator(), credential: stored)
/// let api = Session { $0.interceptors.adapters = [auth]; $0.interceptors.retriers = [auth] }
/// ```
///
/// If the refresh fails, every waiting request fails with its original 401 and the credential is
/// kept, so a later request tries again.
public final class AuthenticationInterceptor<A: Authenticator>: RequestAdapter, RequestRetrier {
    private let authenticator: A
    private let store: CredentialStore<A>
    /// How many times one request may be replayed after a refresh.
    let maximumReplays: Int

    /// Creates an interceptor.
    /// - Parameters:
    ///   - authenticator: Applies and refreshes the credential.
    ///   - credential: The credential to start with; `nil` to have the authenticator fetch it
    ///     (``Authenticator/fetchCredential()``) when the first request needs it.
    ///   - maximumReplays: How often one request may be replayed after a refresh (default 1).
    public init(authenticator: A, credential: A.Credential?, maximumReplays: Int = 1) {
        self.authenticator = authenticator
        self.store = CredentialStore(authenticator: authenticator, credential: credential)
        self.maximumReplays = maximumReplays
    }

    /// The current credential.
    public var credential: A.Credential? {
        get async { await store.credential }
    }

    /// How many refreshes have run.
    public var refreshCount: Int {
        get async { await store.refreshCount }
    }

    /// Applies the current credential, fetching it first when there is none yet
    /// (``Authenticator/fetchCredential()``) and refreshing it first if it says it has expired.
    /// - Parameter request: The request.
    /// - Returns: The request with the credential.
    public func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        guard let credential = try await store.validCredential() else { return request }
        var request = request
        authenticator.apply(credential, to: &request)
        return request
    }

    /// Refreshes (once for all concurrent callers) and replays requests that failed authentication.
    /// - Parameter context: The failure.
    /// - Returns: `.retry(after: 0)` after a successful refresh, else `.doNotRetry`.
    public func decide(_ context: RetryContext) async -> RetryDecision {
        guard authenticator.isAuthenticationFailure(context.error), let request = context.request,
            context.retryCount < maximumReplays
        else { return .doNotRetry }
        return await store.refresh(after: request) ? .retry(after: 0) : .doNotRetry
    }
}

/// The credential and the one refresh in flight, behind an actor.
private actor CredentialStore<A: Authenticator> {
    let authenticator: A
    private(set) var credential: A.Credential?
    private(set) var refreshCount = 0
    private var refreshing: Task<A.Credential, any Error>?
    /// The one fetch of the first credential in flight (``Authenticator/fetchCredential()``).
    private var fetching: Task<A.Credential?, any Error>?

    init(authenticator: A, credential: A.Credential?) {
        self.authenticator = authenticator
        self.credential = credential
    }

    /// The credential to send: fetched first when there is none, refreshed first if it says it
    /// has expired.
    func validCredential() async throws -> A.Credential? {
        if let refreshing { return try await refreshing.value }
        if credential == nil {
            if fetching == nil {
                let authenticator = self.authenticator
                fetching = Task { try await authenticator.fetchCredential() }
            }
            let task = fetching
            let fetched: A.Credential?
            do {
                fetched = try await task?.value
            } catch {
                if fetching == task { fetching = nil }  // a later request asks again
                throw error
            }
            if fetching == task {
                fetching = nil
                // A refresh that ran meanwhile wins over what was fetched.
                if credential == nil { credential = fetched }
            }
            if let refreshing { return try await refreshing.value }
        }
        guard let credential else { return nil }
        guard credential.requiresRefresh else { return credential }
        return try await runRefresh(from: credential)
    }

    /// Refreshes after `request` failed authentication, unless it was sent with an older
    /// credential (then the current one is simply replayed). Returns whether to replay.
    func refresh(after request: URLRequest) async -> Bool {
        if let refreshing {
            return (try? await refreshing.value) != nil
        }
        guard let credential else { return false }
        guard authenticator.isRequest(request, authenticatedWith: credential) else { return true }
        return (try? await runRefresh(from: credential)) != nil
    }

    private func runRefresh(from credential: A.Credential) async throws -> A.Credential {
        let authenticator = self.authenticator
        let task = Task { try await authenticator.refresh(credential) }
        refreshing = task
        refreshCount += 1
        defer { refreshing = nil }
        let fresh = try await task.value
        self.credential = fresh
        return fresh
    }
}
