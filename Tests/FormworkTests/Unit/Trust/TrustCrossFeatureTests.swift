import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that presents a chain of the test's choosing and applies the exchange's trust the
/// way a real one does (``TrustEvaluator/evaluate(host:certificateChain:)`` before any byte of the
/// answer): a refused chain ends the exchange with the evaluator's error; an accepted one gets a
/// `200` with the given `Cache-Control`.
private final class ChainTransport: Transport {
    private let state: Protected<(chain: [Data], exchanges: Int, sawTrust: Bool)>
    let cacheControl: String

    init(chain: [Data], cacheControl: String = "no-store") {
        self.state = Protected((chain, 0, false))
        self.cacheControl = cacheControl
    }

    var exchanges: Int { state.withLock { $0.exchanges } }
    var sawTrust: Bool { state.withLock { $0.sawTrust } }
    func present(_ chain: [Data]) { state.withLock { $0.chain = chain } }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        ChainTask(transport: self, request: request, events: events)
    }

    fileprivate func run(_ request: TransportRequest, _ events: any TransportEvents) {
        let chain = state.withLock { state in
            state.exchanges += 1
            if request.trust != nil { state.sawTrust = true }
            return state.chain
        }
        guard let url = request.urlRequest.url, let host = url.host else {
            return events.finish(URLError(.badURL))
        }
        if let failure = request.trust?.evaluate(host: host, certificateChain: chain) {
            return events.finish(failure)
        }
        let response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Cache-Control": cacheControl, "Content-Type": "text/plain", "ETag": "\"1\""])
        if let response, events.receiveResponseHead(TransportResponseHead(response)) {
            events.receiveBody(Data("network".utf8))
        }
        events.finish(nil)
    }
}

private final class ChainTask: TransportTask {
    let transport: ChainTransport
    let request: TransportRequest
    let events: any TransportEvents

    init(transport: ChainTransport, request: TransportRequest, events: any TransportEvents) {
        self.transport = transport
        self.request = request
        self.events = events
    }

    func resume() { transport.run(request, events) }
    func cancel() {}
}

// Sendable: every stored property is immutable and Sendable but `request`, which is only read.
extension ChainTask: @unchecked Sendable {}

/// Records trust reports and finished requests.
private final class TrustMonitor: EventMonitor {
    let reports = Protected<[(UUID, TrustReport)]>([])
    let finished = Protected<[RequestMetrics]>([])
    func requestDidReportTrust(_ id: UUID, report: TrustReport) {
        reports.withLock { $0.append((id, report)) }
    }
    func requestDidFinish(_ metrics: RequestMetrics) { finished.withLock { $0.append(metrics) } }
}

/// A trust failure among the other features: the engine hands every exchange the session's policy,
/// and a refused chain is never retried, never answered from the cache, and monitors hear reports
/// with the request's id.
@Suite("Trust with retries, the cache and monitors")
struct TrustCrossFeatureTests {
    let client = Client()
    let url = "https://127.0.0.1:9/trust"

    @Test("A refused chain is not retried, even with a retry policy")
    func notRetried() async throws {
        let chains = try await SharedChains.made.value
        let transport = ChainTransport(chain: [chains.foreignLeaf.der, chains.foreignRoot.der])
        let policy = TrustPolicy(pinSets: [
            try PinSet(hosts: ["127.0.0.1"], pins: [chains.root.pin, chains.leaf.pin])
        ])
        let session = Session {
            $0.transport = transport
            $0.trust = policy
            $0.interceptors.retriers = [RetryPolicy(baseDelay: 0.01)]
        }
        let response = await client.request(TestForm(url: url), session: session).handledString()
        #expect(response.error?.kind == .serverTrust)
        #expect(response.error?.presentedPins == [chains.foreignLeaf.pin, chains.foreignRoot.pin])
        #expect(transport.exchanges == 1)
        #expect(transport.sawTrust)
    }

    @Test("A refused chain is never answered with a stale stored response, even within stale-if-error")
    func neverServedFromTheCache() async throws {
        let chains = try await SharedChains.made.value
        let transport = ChainTransport(
            chain: [chains.leaf.der, chains.intermediate.der], cacheControl: "max-age=0, stale-if-error=600")
        let cache = HTTPCache()
        let policy = TrustPolicy(pinSets: [
            try PinSet(hosts: ["127.0.0.1"], pins: [chains.root.pin, chains.intermediate.pin])
        ])
        let session = Session {
            $0.transport = transport
            $0.trust = policy
            $0.cache = cache
        }
        let first = await client.request(TestForm(url: url), session: session).handledString()
        #expect(first.value == "network")
        transport.present([chains.foreignLeaf.der, chains.foreignRoot.der])
        let second = await client.request(TestForm(url: url), session: session).handledString()
        #expect(second.error?.kind == .serverTrust)
        #expect(second.value == nil)
        #expect(transport.exchanges == 2)
    }

    @Test(
        "A report-only mismatch reaches the session's monitors with the request's id, and the request succeeds"
    )
    func reportOnlyReachesMonitors() async throws {
        let chains = try await SharedChains.made.value
        let transport = ChainTransport(chain: [chains.foreignLeaf.der])
        let monitor = TrustMonitor()
        let policy = TrustPolicy(
            pinSets: [
                try PinSet(hosts: ["127.0.0.1"], pins: [chains.root.pin, chains.leaf.pin], mode: .reportOnly)
            ])
        let session = Session {
            $0.transport = transport
            $0.trust = policy
            $0.interceptors.eventMonitors = [monitor]
        }
        let response = await client.request(TestForm(url: url), session: session).handledString()
        #expect(response.value == "network")
        let reports = monitor.reports.withLock { $0 }
        let finished = monitor.finished.withLock { $0 }
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(report.1.outcome == .mismatch)
        #expect(report.1.presentedPins == [chains.foreignLeaf.pin])
        #expect(report.0 == finished.first?.requestID)
    }

    @Test("A session without a policy hands its transport none")
    func noPolicyNoTrust() async throws {
        let transport = ChainTransport(chain: [])
        let session = Session { $0.transport = transport }
        let response = await client.request(TestForm(url: url), session: session).handledString()
        #expect(response.value == "network")
        #expect(!transport.sawTrust)
    }
}
