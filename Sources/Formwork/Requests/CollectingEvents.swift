import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of an exchange that belongs to no request (the HTTP cache's background
/// revalidation): the response and body are collected and handed over at the end, with
/// Formwork's redirect and credential rules applied as for any request.
final class CollectingEvents: TransportEvents {
    private let collected = Protected((response: URLResponse?.none, body: Data()))
    private let configuration: Session.Configuration
    private let completion: @Sendable (_ body: Data, _ response: URLResponse?, _ error: (any Error)?) -> Void

    /// Creates events that call `completion` once, when the exchange ends.
    init(
        configuration: Session.Configuration,
        completion:
            @escaping @Sendable (_ body: Data, _ response: URLResponse?, _ error: (any Error)?) -> Void
    ) {
        self.configuration = configuration
        self.completion = completion
    }

    func receiveResponse(_ response: URLResponse) -> Bool {
        collected.withLock { $0.response = response }
        return true
    }

    func receiveBody(_ body: Data) {
        collected.withLock { $0.body.append(body) }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {}

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        try? RedirectRule.follow(
            response, to: request, hasBody: false, sensitiveHeaders: configuration.sensitiveHeaders)
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        PasswordCredential.answering(
            isProxy: isProxy, previousFailures: previousFailures, configuration: configuration)
    }

    func finish(_ error: (any Error)?) {
        let (response, body) = collected.withLock { ($0.response, $0.body) }
        completion(body, response, error)
    }
}
