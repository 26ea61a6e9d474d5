import Foundation

// The session is what runs its requests' engines (`RequestHost`): the engine reads its settings,
// its layered transport and its count of running requests through that protocol, never the
// session itself.
extension Session: RequestHost {}

extension EngineSettings {
    /// What the request engine reads of a session's configuration.
    init(_ configuration: Session.Configuration) {
        self.init(
            adapters: configuration.adapters, retrier: configuration.retrier,
            eventMonitors: configuration.eventMonitors, deadline: configuration.deadline,
            acceptableStatusCodes: configuration.acceptableStatusCodes,
            redirectPolicy: configuration.redirectPolicy, sensitiveHeaders: configuration.sensitiveHeaders,
            coalescesRequests: configuration.coalescesRequests, credential: configuration.credential,
            proxyCredential: configuration.proxyCredential)
    }
}
