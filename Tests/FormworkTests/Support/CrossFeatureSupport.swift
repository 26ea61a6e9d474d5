import Foundation

@testable import Formwork

// Helpers the cross-feature suites share (CrossFeatureTests.swift and
// CrossFeatureTests+Matrix.swift).

/// A form of `/cache/resource` (or any GET) with a cache policy.
struct CachedForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var cachePolicy: CachePolicy = .useProtocol
}

/// What `/coalesce/hits` answers.
struct HeldHits: Decodable, Sendable {
    let hits: Int
}

/// A gate an adapter waits at until the test opens it.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
