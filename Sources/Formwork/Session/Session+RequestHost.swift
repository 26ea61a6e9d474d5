import Foundation

// The session is what runs its requests' engines (`RequestHost`): the engine reads its settings,
// its layered transport and its count of running requests through that protocol, never the
// session itself.
extension Session: RequestHost {}

extension EngineSettings {
    /// What the request engine reads of a session's configuration.
    init(_ configuration: Session.Configuration) {
        self.init(
            adapters: configuration.interceptors.adapters, retriers: configuration.interceptors.retriers,
            eventMonitors: configuration.interceptors.eventMonitors, deadline: configuration.timeouts.total,
            acceptableStatusCodes: configuration.acceptableStatusCodes,
            redirectPolicy: configuration.redirectPolicy,
            sensitiveHeaders: configuration.credentials.sensitiveHeaders,
            coalescesRequests: configuration.coalescesRequests, credential: configuration.credentials.server,
            proxyCredential: configuration.credentials.proxy,
            trust: configuration.trust.flatMap { $0.isEmpty && $0.reportHandler == nil ? nil : $0 })
    }
}
