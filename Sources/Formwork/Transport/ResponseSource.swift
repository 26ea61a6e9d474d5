import Foundation

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable {
    /// From the server.
    case network
    /// From Formwork's ``HTTPCache``, without asking the server.
    case cache
    /// From the ``HTTPCache``, after the server confirmed it with `304 Not Modified`.
    case revalidated
}

/// Where one outcome's response came from, as the engine records it.
struct CacheDelivery: Sendable, Equatable {
    /// The source.
    var source: ResponseSource
    /// The stored response's age, for a response from the cache.
    var age: TimeInterval?
    /// Whether a stale stored response was served.
    var isStale: Bool

    /// A response from the network.
    static let network = CacheDelivery(source: .network, age: nil, isStale: false)
}
