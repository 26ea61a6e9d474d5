import Formwork
import Foundation
import Testing

// Observability.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Observability")
    struct ObservabilityTests {
        struct SlowRequestReporter: EventMonitor {
            let threshold: TimeInterval
            let report: @Sendable (String) -> Void

            func requestDidFinish(_ metrics: RequestMetrics) {
                guard metrics.duration > threshold, let url = metrics.request?.url else { return }
                report(
                    "slow: \(url.path) took \(Int(metrics.duration * 1000)) ms in \(metrics.attempts) attempt(s)"
                )
            }
        }

        struct Debugging: Requestable {
            var session = Session.default  // added for the test

            func reproduce() async -> String {
                let sent = request(ProfileForm(token: "secret"), session: session)
                _ = await sent.response()
                return sent.cURLDescription() ?? ""
                // curl -v -H 'Accept: application/json' -H 'Authorization: <redacted>' ... 'https://api.example.com/me'
            }
        }

        @Test("Observability: monitors hear requests, and credentials stay redacted")
        func observability() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/me", .json("{}", delay: 0.05))
            let lines = Lines()
            let logger = ConsoleLogger(
                redaction: Redaction(headers: ["X-Api-Key"], queryItems: ["token", "sign"]),
                logsHeaders: true,
                write: { line in lines.append(line) })
            var configuration = Session.Configuration()
            configuration.interceptors.eventMonitors = [
                logger, SlowRequestReporter(threshold: 0) { lines.append($0) },
            ]
            let session = Session(stubs: stubs, configuration: configuration)

            let curl = await Debugging(session: session).reproduce()
            #expect(curl.contains("Authorization: <redacted>"))
            #expect(curl.contains("'https://api.example.com/me'"))
            #expect(!curl.contains("secret"))

            let text = lines.all.joined(separator: "\n")
            #expect(text.contains("→ GET https://api.example.com/me (attempt 1)"))
            #expect(text.contains("Authorization: <redacted>"))
            #expect(text.contains("slow: /me took"))
            #expect(!text.contains("secret"))
            let observed = Session { configuration in
                configuration.interceptors.eventMonitors = [
                    ConsoleLogger(), SlowRequestReporter(threshold: 2) { print($0) },
                ]
            }
            #expect(observed.configuration.interceptors.eventMonitors.count == 2)
        }
    }
}
