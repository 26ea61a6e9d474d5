import Foundation

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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

/// The transport under test (URLSession here, AsyncHTTPClient in the Examples behaviour suite)
/// with a hold: the exchanges it makes for requests that `holds` picks wait, until
/// ``release()``, either to start (``Hold/start``: nothing reaches the server) or to report what
/// the server answered (``Hold/events``: the server has answered, Formwork has not heard it).
/// Every interleaving a test needs is then forced, not left to timing. After ``release()``
/// nothing more is held.
final class HoldingTransport: Transport {
    /// What a held exchange waits for.
    enum Hold: Sendable {
        /// Its `resume()`: the real exchange starts at ``HoldingTransport/release()``.
        case start
        /// The delivery of its events: the real exchange runs at once, and what it reports is
        /// kept and handed on, in order, at ``HoldingTransport/release()``.
        case events
    }

    private let base: any Transport
    private let hold: Hold
    private let holds: @Sendable (URLRequest) -> Bool
    private let state = Protected((exchanges: [HeldExchange](), released: false))

    /// - Parameters:
    ///   - hold: What the held exchanges wait for.
    ///   - holds: Which requests (as the transport gets them, after every layer) are held.
    init(_ hold: Hold, holding holds: @escaping @Sendable (URLRequest) -> Bool = { _ in true }) {
        _ = TransportUnderTest.installed
        self.base = Session.transportForTesting.withLock { $0 } ?? URLSessionTransport()
        self.hold = hold
        self.holds = holds
    }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        let released = state.withLock { $0.released }
        guard !released, holds(request.urlRequest) else { return base.makeTask(for: request, events: events) }
        let exchange = HeldExchange(hold: hold, events: events)
        exchange.attach(base.makeTask(for: request, events: exchange))
        state.withLock { $0.exchanges.append(exchange) }
        return exchange
    }

    func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool {
        base.enforcesIdleTimeout(of: seconds)
    }

    /// How many exchanges were held.
    var held: Int { state.withLock { $0.exchanges.count } }
    /// How many held exchanges were resumed by Formwork.
    var resumed: Int { state.withLock { $0.exchanges }.count { $0.isResumed } }
    /// How many held exchanges the real transport reported the end of (``Hold/events`` only:
    /// the server answered them in full).
    var ended: Int { state.withLock { $0.exchanges }.count { $0.hasEnded } }

    /// Lets every held exchange go on (those Formwork cancelled stay cancelled), and holds
    /// nothing more.
    func release() {
        let exchanges = state.withLock { state in
            state.released = true
            return state.exchanges
        }
        for exchange in exchanges { exchange.release() }
    }
}

/// One held exchange of a ``HoldingTransport``: Formwork's task, and the real task's events.
private final class HeldExchange: TransportTask, TransportEvents {
    private enum Event {
        case head(TransportResponseHead)
        case body(Data)
        case finish((any Error)?)
    }

    private struct State {
        var task: (any TransportTask)?
        var isResumed = false
        var isReleased = false
        var isCancelled = false
        var hasEnded = false
        var kept: [Event] = []
    }

    private let hold: HoldingTransport.Hold
    private let events: any TransportEvents
    private let state = Protected(State())

    init(hold: HoldingTransport.Hold, events: any TransportEvents) {
        self.hold = hold
        self.events = events
    }

    func attach(_ task: any TransportTask) { state.withLock { $0.task = task } }
    var isResumed: Bool { state.withLock { $0.isResumed } }
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    // MARK: The task Formwork holds

    func resume() {
        let task = state.withLock { state -> (any TransportTask)? in
            guard !state.isResumed, !state.isCancelled else { return nil }
            state.isResumed = true
            return hold == .events || state.isReleased ? state.task : nil
        }
        task?.resume()
    }

    func cancel() {
        let task = state.withLock { state -> (any TransportTask)? in
            state.isCancelled = true
            state.kept = []
            return state.task
        }
        task?.cancel()
    }

    func release() {
        switch hold {
        case .start:
            let task = state.withLock { state -> (any TransportTask)? in
                state.isReleased = true
                return state.isResumed && !state.isCancelled ? state.task : nil
            }
            task?.resume()
        case .events:
            // Hands on what was kept, in order; what arrives meanwhile is kept too and handed on
            // in the next round; once nothing is left, events pass straight through.
            while true {
                let kept = state.withLock { state -> [Event] in
                    if state.kept.isEmpty { state.isReleased = true }
                    defer { state.kept = [] }
                    return state.isCancelled ? [] : state.kept
                }
                guard !kept.isEmpty else { return }
                for event in kept where !deliver(event) {
                    // Formwork wants no more of the exchange.
                    cancel()
                    return
                }
            }
        }
    }

    /// Hands `event` on; `false` when Formwork wants no more of the exchange.
    @discardableResult
    private func deliver(_ event: Event) -> Bool {
        switch event {
        case .head(let head): return events.receiveResponseHead(head)
        case .body(let data): events.receiveBody(data)
        case .finish(let error): events.finish(error)
        }
        return true
    }

    /// Keeps `event` while the exchange is held, or hands it on.
    private func pass(_ event: Event) -> Bool {
        let now = state.withLock { state -> Bool in
            if case .finish = event { state.hasEnded = true }
            guard hold == .events, !state.isReleased else { return true }
            if !state.isCancelled { state.kept.append(event) }
            return false
        }
        return now ? deliver(event) : true
    }

    // MARK: The real task's events

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool { pass(.head(head)) }
    func receiveBody(_ body: Data) { _ = pass(.body(body)) }
    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        events.sent(totalBytes: totalBytes, expectedBytes: expectedBytes)
    }
    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        events.redirect(response, to: request)
    }
    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        events.credential(isProxy: isProxy, previousFailures: previousFailures)
    }
    func finish(_ error: (any Error)?) { _ = pass(.finish(error)) }
}

// Sendable: every mutable value is behind `state`'s lock; the rest is constant (and what is kept,
// a response head or body bytes, is only read once it is handed on).
extension HeldExchange: @unchecked Sendable {}
