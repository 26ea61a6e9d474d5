import Foundation

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The built-in URLSession transport of a session, for tests that look inside it. Only for
// sessions that use it (no `configuration.transport`): anything else is a mistake in the test.
extension Session {
    /// The built-in transport's URLSession delegate, which routes task callbacks.
    var router: URLSessionTransportDelegate {
        guard let transport = urlSessionTransport else { preconditionFailure("not the URLSession transport") }
        return transport.router
    }

    /// The built-in transport's URLSession.
    var urlSession: URLSession {
        guard let transport = urlSessionTransport else { preconditionFailure("not the URLSession transport") }
        return transport.urlSession
    }

    /// The built-in transport's delegate queue.
    var deliveryQueue: DeliveryQueue {
        guard let transport = urlSessionTransport else { preconditionFailure("not the URLSession transport") }
        return transport.deliveryQueue
    }
}

extension Session {
    /// How many URLSession tasks the built-in transport still routes (nothing may outlive its
    /// request); 0 for other transports, which keep no such table.
    var routedTaskCount: Int { urlSessionTransport?.router.routedTaskCount ?? 0 }
}
