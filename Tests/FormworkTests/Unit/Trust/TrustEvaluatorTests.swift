import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Collects reports.
private final class Reports: Sendable {
    private let list = Protected<[TrustReport]>([])
    var all: [TrustReport] { list.withLock { $0 } }
    func add(_ report: TrustReport) { list.withLock { $0.append(report) } }
}

@Suite("Trust: the verdict on a presented chain")
struct TrustEvaluatorTests {
    private func evaluator(_ sets: [PinSet], reports: Reports) -> TrustEvaluator {
        TrustEvaluator(policy: TrustPolicy(pinSets: sets, reportHandler: { reports.add($0) }))
    }

    @Test("a pin on the leaf, the intermediate or the root passes; any certificate of the chain may match")
    func pinAnywhereInTheChain() async throws {
        let chains = try await SharedChains.made.value
        let chain = [chains.leaf.der, chains.intermediate.der, chains.root.der]
        for pinned in [chains.leaf, chains.intermediate, chains.root] {
            let reports = Reports()
            let set = try PinSet(hosts: ["localhost"], pins: [pinned.pin, unrelatedPins[0]])
            #expect(
                evaluator([set], reports: reports).evaluate(host: "localhost", certificateChain: chain) == nil
            )
            #expect(reports.all.isEmpty)
        }
    }

    @Test("after a rotation, the backup pin passes the new leaf")
    func backupPinAfterRotation() async throws {
        let chains = try await SharedChains.made.value
        let set = try PinSet(hosts: ["localhost"], pins: [chains.leaf.pin, chains.rotatedLeaf.pin])
        let verdict = evaluator([set], reports: Reports()).evaluate(
            host: "localhost", certificateChain: [chains.rotatedLeaf.der, chains.intermediate.der])
        #expect(verdict == nil)
    }

    @Test("wrong pins fail with the host, the pins expected and every hash presented")
    func wrongPins() async throws {
        let chains = try await SharedChains.made.value
        let set = try PinSet(hosts: ["**.localhost", "localhost"], pins: unrelatedPins)
        let error = try #require(
            evaluator([set], reports: Reports()).evaluate(
                host: "LOCALHOST", certificateChain: [chains.foreignLeaf.der, chains.foreignRoot.der]))
        #expect(error.kind == .serverTrust)
        #expect(error.reason == .pinMismatch)
        #expect(error.host == "localhost")
        #expect(error.expectedPins == unrelatedPins.sorted())
        #expect(error.presentedPins == [chains.foreignLeaf.pin, chains.foreignRoot.pin])
        #expect(error.failureReason.contains(chains.foreignLeaf.pin))
        #expect(error.failureReason.contains(chains.foreignRoot.pin))
        #expect(error.isNetworkFailure)
        #expect(!error.userMessage.isEmpty)
    }

    @Test("report-only: the request goes on and the mismatch is reported with the chain's hashes")
    func reportOnly() async throws {
        let chains = try await SharedChains.made.value
        let reports = Reports()
        let set = try PinSet(hosts: ["localhost"], pins: unrelatedPins, mode: .reportOnly)
        let verdict = evaluator([set], reports: reports).evaluate(
            host: "localhost", certificateChain: [chains.leaf.der, chains.intermediate.der])
        #expect(verdict == nil)
        let report = try #require(reports.all.first)
        #expect(reports.all.count == 1)
        #expect(report.outcome == .mismatch)
        #expect(report.host == "localhost")
        #expect(report.presentedPins == [chains.leaf.pin, chains.intermediate.pin])
        #expect(report.expectedPins == unrelatedPins.sorted())
    }

    @Test("an expired pin set is not enforced, and the app is told")
    func expiredPinSet() async throws {
        let chains = try await SharedChains.made.value
        let reports = Reports()
        let expiry = Date(timeIntervalSince1970: 1_000_000)
        let set = try PinSet(hosts: ["localhost"], pins: unrelatedPins, expires: expiry)
        let evaluator = evaluator([set], reports: reports)
        let before = evaluator.evaluate(
            host: "localhost", certificateChain: [chains.leaf.der], now: expiry.addingTimeInterval(-1))
        #expect(before?.reason == .pinMismatch)
        #expect(reports.all.isEmpty)
        let after = evaluator.evaluate(host: "localhost", certificateChain: [chains.leaf.der], now: expiry)
        #expect(after == nil)
        #expect(reports.all.map(\.outcome) == [.pinSetExpired])
        #expect(reports.all.first?.expires == expiry)
    }

    @Test("a host no pin set covers passes, look-alikes included")
    func uncoveredHosts() async throws {
        let chains = try await SharedChains.made.value
        let set = try PinSet(hosts: ["*.example.com"], pins: unrelatedPins)
        let evaluator = evaluator([set], reports: Reports())
        #expect(evaluator.evaluate(host: "example.com", certificateChain: [chains.leaf.der]) == nil)
        #expect(evaluator.evaluate(host: "api.example.com", certificateChain: [chains.leaf.der]) != nil)
        #expect(
            evaluator.evaluate(host: "api.example.com.evil.net", certificateChain: [chains.leaf.der]) == nil)
    }

    @Test(
        "a transport that cannot see certificates refuses enforced pins, anchors and client identities, and sends report-only"
    )
    func refusalWithoutEvaluation() async throws {
        let chains = try await SharedChains.made.value
        let reports = Reports()
        let policy = TrustPolicy(
            pinSets: [
                try PinSet(hosts: ["pinned.test"], pins: unrelatedPins),
                try PinSet(hosts: ["report.test"], pins: unrelatedPins, mode: .reportOnly),
                try PinSet(
                    hosts: ["expired.test"], pins: unrelatedPins, expires: Date(timeIntervalSince1970: 0)),
            ],
            anchors: [try TrustAnchors(hosts: ["anchored.test"], certificates: [chains.root.der])],
            clientIdentities: [
                try ClientIdentity(hosts: ["mtls.test"], pkcs12: chains.clientPKCS12, password: "")
            ],
            reportHandler: { reports.add($0) })
        let evaluator = TrustEvaluator(policy: policy)
        for host in ["pinned.test", "anchored.test", "mtls.test"] {
            let error = try #require(evaluator.refusal(forHostWithoutEvaluation: host, transportName: "T"))
            #expect(error.kind == .serverTrust)
            #expect(error.reason == .trustNotEnforceable)
            #expect(error.host == host)
            #expect(error.failureReason.contains("URLSession on Apple platforms"))
        }
        #expect(evaluator.refusal(forHostWithoutEvaluation: "report.test", transportName: "T") == nil)
        #expect(evaluator.refusal(forHostWithoutEvaluation: "expired.test", transportName: "T") == nil)
        #expect(evaluator.refusal(forHostWithoutEvaluation: "free.test", transportName: "T") == nil)
        #expect(reports.all.map(\.outcome) == [.notEvaluated, .pinSetExpired])
    }

    @Test("a trust failure is never retried by the retry policy; the outbox tries a refused chain again")
    func classification() {
        let mismatch = NetworkError(
            .serverTrust, failureReason: "x", details: .init(reason: .pinMismatch),
            request: URLRequest(url: URL(string: "https://a.example")!))
        let context = RetryContext(request: mismatch.request, response: nil, error: mismatch, retryCount: 0)
        #expect(RetryPolicy().decision(for: context, now: Date()) == .doNotRetry)
        #expect(!Outbox.Options.isPermanentByDefault(mismatch))
        let notEnforceable = NetworkError(
            .serverTrust, failureReason: "x", details: .init(reason: .trustNotEnforceable))
        #expect(Outbox.Options.isPermanentByDefault(notEnforceable))
    }
}
