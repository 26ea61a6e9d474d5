import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of the cache layer's background revalidation, an exchange that belongs to no
/// request: the response and body are collected and handed over at the end, with the session's
/// credential rules applied as for any request. A redirect is not followed: it is the answer, stored
/// under the URL revalidated (the cache keeps each hop under its own URL).
final class RevalidationEvents: TransportEvents {
    private let collected = Protected((head: TransportResponseHead?.none, body: Data()))
    private let rules: CachingTransport.ExchangeRules
    private let completion:
        @Sendable (_ body: Data, _ head: TransportResponseHead?, _ error: (any Error)?) -> Void

    /// Creates events that call `completion` once, when the exchange ends.
    init(
        rules: CachingTransport.ExchangeRules,
        completion:
            @escaping @Sendable (_ body: Data, _ head: TransportResponseHead?, _ error: (any Error)?) -> Void
    ) {
        self.rules = rules
        self.completion = completion
    }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        collected.withLock { $0.head = head }
        return true
    }

    func receiveBody(_ body: Data) {
        collected.withLock { $0.body.append(body) }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {}

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        nil
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        rules.credential(isProxy, previousFailures)
    }

    func finish(_ error: (any Error)?) {
        let (head, body) = collected.withLock { ($0.head, $0.body) }
        completion(body, head, error)
    }
}
