import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// What `/cache/stats` answers: how often the server saw a resource.
    private struct ResourceStats: Decodable, Sendable {
        let hits: Int
    }

    /// Collects trust reports from the policy's handler and from a session's monitors.
    private final class TrustReports: EventMonitor {
        let handled = Protected<[TrustReport]>([])
        let monitored = Protected<[TrustReport]>([])

        func requestDidReportTrust(_ id: UUID, report: TrustReport) {
            monitored.withLock { $0.append(report) }
        }
    }

    /// corelibs URLSession gives an app no server-trust challenge, so the built-in transport on
    /// Linux cannot enforce pins, anchors or client identities: such a request fails before a
    /// byte is sent (the demo server sees nothing), with an error that names the alternative;
    /// report-only is sent, and says it was not evaluated.
    @Suite("Trust over corelibs URLSession fails closed", .timeLimit(.minutes(3)))
    struct TrustFailClosedTests {
        let client = Client()

        /// Three rules for `127.0.0.1`, each of which needs the server's certificates.
        enum Rule: String, CaseIterable, Sendable {
            case pins, anchors, clientIdentity
        }

        private func policy(_ rule: Rule, chains: TestChains) throws -> TrustPolicy {
            switch rule {
            case .pins:
                return TrustPolicy(pinSets: [try PinSet(hosts: ["127.0.0.1"], pins: unrelatedPins)])
            case .anchors:
                return TrustPolicy(anchors: [
                    try TrustAnchors(hosts: ["127.0.0.1"], certificates: [chains.root.der])
                ])
            case .clientIdentity:
                return TrustPolicy(clientIdentities: [
                    try ClientIdentity(
                        hosts: ["127.0.0.1"], pkcs12: chains.clientPKCS12, password: chains.clientPassword)
                ])
            }
        }

        private func hits(_ id: String, server: TLSDemoServer) async throws -> Int {
            try await client.request(TestForm(url: server.plainBaseURL + "/cache/stats?id=\(id)"))
                .decode(ResourceStats.self).hits
        }

        @Test(
            "A request to a host whose rules need its certificates is not sent, and says what can enforce them",
            arguments: Rule.allCases)
        func refusedBeforeSending(_ rule: Rule) async throws {
            let chains = try await SharedChains.made.value
            let server = try await DemoServer.tls()
            let id = "trust-\(UUID().uuidString)"
            let policy = try policy(rule, chains: chains)
            let session = Session { $0.trust = policy }
            let response = await client.request(
                TestForm(url: server.url("/cache/resource?id=\(id)&cc=no-store")), session: session
            )
            .retry(RetryPolicy(baseDelay: 0.01))
            .handledString()
            let error = try #require(response.error)
            #expect(error.kind == .serverTrust)
            #expect(error.reason == .trustNotEnforceable)
            #expect(error.host == "127.0.0.1")
            #expect(error.failureReason.contains("URLSession on Apple platforms"))
            #expect(response.response == nil)
            #expect(try await hits(id, server: server) == 0)
        }

        @Test("A report-only pin set is sent, and reported as not evaluated to the handler and the monitors")
        func reportOnlyIsSent() async throws {
            let server = try await DemoServer.tls()
            let id = "trust-\(UUID().uuidString)"
            let reports = TrustReports()
            let session = Session {
                $0.trust = TrustPolicy(
                    pinSets: [try! PinSet(hosts: ["localhost"], pins: unrelatedPins, mode: .reportOnly)],
                    reportHandler: { report in reports.handled.withLock { $0.append(report) } })
                $0.interceptors.eventMonitors = [reports]
            }
            // The plain listener: the rule is about a host, the report is about not evaluating it.
            let url = server.plainBaseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let response = await client.request(
                TestForm(url: url + "/cache/resource?id=\(id)&cc=no-store"), session: session
            )
            .handledString()
            #expect(response.error == nil)
            #expect(try await hits(id, server: server) == 1)
            // Plain HTTP has no certificate: nothing to report.
            #expect(reports.handled.withLock { $0 }.isEmpty)
            // Over HTTPS, the request goes (and fails on the untrusted test CA, as without a policy).
            let tls = server.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            let secure = await client.request(
                TestForm(url: tls + "/cache/resource?id=\(id)&cc=no-store"), session: session
            )
            .handledString()
            #expect(secure.error?.kind == .transport)
            #expect(reports.handled.withLock { $0 }.map(\.outcome) == [.notEvaluated])
            #expect(reports.monitored.withLock { $0 }.map(\.outcome) == [.notEvaluated])
            #expect(reports.handled.withLock { $0 }.first?.host == "localhost")
        }

        @Test(
            "A redirect to a host whose pins need its certificates is not followed: the exchange fails before that hop"
        )
        func redirectToPinnedHost() async throws {
            let server = try await DemoServer.tls()
            let id = "trust-\(UUID().uuidString)"
            let session = Session {
                $0.trust = TrustPolicy(pinSets: [try! PinSet(hosts: ["localhost"], pins: unrelatedPins)])
            }
            let target =
                server.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
                + "/cache/resource?id=\(id)&cc=no-store"
            let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
            let response = await client.request(
                TestForm(url: server.plainBaseURL + "/redirect?to=\(escaped)&status=302"), session: session
            )
            .handledString()
            let error = try #require(response.error)
            #expect(error.kind == .serverTrust)
            #expect(error.reason == .trustNotEnforceable)
            #expect(error.host == "localhost")
            #expect(try await hits(id, server: server) == 0)
        }
    }
#endif
