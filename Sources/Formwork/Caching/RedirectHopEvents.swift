import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of one hop of an exchange the cache layer follows itself (see ``CachingTask``).
///
/// The cache stores and serves each hop under its own URL (RFC 9111): a redirect under the URL that
/// answered it, the final response under its own. So the layers below never follow a redirect of
/// such an exchange (``redirect(_:to:)`` keeps the request they propose and answers `nil`): the
/// redirect arrives as a response, from the network or from the cache, and is stored like any
/// response. Then the request's own rules decide (``TransportEvents/redirect(_:to:)`` of the
/// request's events): followed, its head and body go no further and the next hop starts once it
/// ends; not followed, it is the response.
final class RedirectHopEvents: TransportEvents {
    /// The statuses a client follows with a `Location`.
    static let redirectStatusCodes: Set<Int> = [301, 302, 303, 307, 308]

    private struct State {
        /// The request the layers below proposed for the redirect, if they did.
        var proposed: URLRequest?
        /// The next hop's request, once the redirect is followed.
        var next: URLRequest?
    }

    private let target: any TransportEvents
    /// The hop's request.
    private let request: URLRequest
    /// Starts the next hop with its request.
    private let follow: @Sendable (URLRequest) -> Void
    private let state = Protected(State())

    /// Events for the hop that sends `request`, passing on to `target`.
    /// - Parameters:
    ///   - target: The request's events.
    ///   - request: The hop's request.
    ///   - follow: Starts the next hop, when this one is a redirect the request follows.
    init(
        _ target: any TransportEvents, request: URLRequest,
        follow: @escaping @Sendable (URLRequest) -> Void
    ) {
        self.target = target
        self.request = request
        self.follow = follow
    }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        if let next = followed(head) {
            state.withLock { $0.next = next }
            return true
        }
        return target.receiveResponseHead(head)
    }

    /// The request that follows `head`, when it is a redirect the request's rules follow.
    private func followed(_ head: TransportResponseHead) -> URLRequest? {
        guard Self.redirectStatusCodes.contains(head.statusCode),
            let location = head.value(forHTTPHeaderField: "Location"),
            let url = URL(string: location, relativeTo: head.url)?.absoluteURL
        else { return nil }
        let response =
            head.response
            ?? HTTPURLResponse(
                url: head.url, statusCode: head.statusCode, httpVersion: head.httpVersion,
                headerFields: Dictionary(
                    head.joinedHeaders.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
        guard let response else { return nil }
        let proposed = state.withLock { $0.proposed } ?? Self.proposal(after: head, to: url, from: request)
        return target.redirect(response, to: proposed)
    }

    /// The request a client sends next for a redirect to `url`: the hop's request at the new
    /// address (a `GET` or `HEAD` keeps its method; a `303` turns any other into a `GET`).
    static func proposal(after head: TransportResponseHead, to url: URL, from request: URLRequest)
        -> URLRequest
    {
        var next = request
        next.url = url
        if head.statusCode == 303, let method = next.httpMethod, method != "GET", method != "HEAD" {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        return next
    }

    func receiveBody(_ body: Data) {
        guard state.withLock({ $0.next == nil }) else { return }
        target.receiveBody(body)
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        target.sent(totalBytes: totalBytes, expectedBytes: expectedBytes)
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        state.withLock { $0.proposed = request }
        return nil
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        target.credential(isProxy: isProxy, previousFailures: previousFailures)
    }

    func finish(_ error: (any Error)?) {
        if error == nil, let next = state.withLock({ $0.next }) {
            follow(next)
        } else {
            target.finish(error)
        }
    }
}
