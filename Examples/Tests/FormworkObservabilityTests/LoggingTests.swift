import Formwork
import FormworkTestSupport
import Foundation
import Logging
import Testing

@testable import FormworkObservability

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("OpenTelemetry: the swift-log bridge and url.full's redaction")
struct LoggingTests {
    @Test("The console logger's lines go to a swift-log Logger at its level, credentials redacted")
    func swiftLogBridge() async throws {
        let store = MemoryLogHandler.Store()
        let logger = Logger(label: "api") { _ in MemoryLogHandler(store: store) }
        let session = Session {
            $0.transport = URLSessionTransport()  // whatever transport the behaviour suite installs
            $0.interceptors.eventMonitors = [
                ConsoleLogger(logger: logger, level: .notice, redaction: Redaction(queryItems: ["token"]))
            ]
        }
        let url = try await DemoServer.url("/echo?token=secret")
        _ = try await Client().request(
            Form(url: url, headers: ["Authorization": "Bearer secret"]), session: session
        )
        .data()
        let messages = store.messages
        #expect(messages.count == 2)
        let sent = try #require(messages.first)
        #expect(sent.hasPrefix("notice → GET "))
        #expect(sent.contains("token=<redacted>"))
        #expect(sent.contains("Authorization: <redacted>"))
        #expect(messages.last?.hasPrefix("notice ← 200 GET ") == true)
        #expect(!messages.joined().contains("secret"))
    }

    @Test(
        "url.full: user and password replaced, the conventions' and the redaction's query values hidden",
        arguments: [
            ("https://user:pw@example.com/a?b=1", "https://REDACTED:REDACTED@example.com/a?b=1"),
            (
                "https://example.com/a?Signature=x&sig=y&AWSAccessKeyId=z",
                "https://example.com/a?Signature=REDACTED&sig=REDACTED&AWSAccessKeyId=REDACTED"
            ),
            (
                "https://example.com/a?X-Goog-Signature=x#top",
                "https://example.com/a?X-Goog-Signature=REDACTED#top"
            ),
            ("https://example.com/a?TOKEN=x&page=2", "https://example.com/a?TOKEN=REDACTED&page=2"),
            ("http://127.0.0.1:8080/a/b@c", "http://127.0.0.1:8080/a/b@c"),
        ])
    func redactedURL(url: String, expected: String) throws {
        let parsed = try #require(URL(string: url))
        #expect(RedactedURL.full(parsed, redaction: Redaction(queryItems: ["token"])) == expected)
    }

    @Test(
        "network.protocol.version from a transport's HTTP version",
        arguments: [
            ("HTTP/1.1", "1.1"), ("HTTP/1.0", "1.0"), ("HTTP/2.0", "2"), ("HTTP/3.0", "3"), ("HTTP/2", "2"),
            ("SPDY/3", nil), ("HTTP/", nil), ("HTTP/x.1", nil),
        ] as [(String, String?)])
    func protocolVersion(httpVersion: String, expected: String?) {
        #expect(OpenTelemetryMonitor.protocolVersion(httpVersion) == expected)
    }

    @Test(
        "formwork.idempotency_key: the key of the structured-field string Formwork sends",
        arguments: [
            (#""abc-1""#, "abc-1"), (#""a\"b\\c""#, #"a"b\c"#), ("plain", "plain"), (#"""#, #"""#),
        ])
    func idempotencyKey(field: String, expected: String) {
        #expect(OpenTelemetryMonitor.idempotencyKey(field) == expected)
    }
}
