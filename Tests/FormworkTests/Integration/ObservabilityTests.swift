import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Records every event it is told about, thread-safely.
final class RecordingMonitor: EventMonitor {
    private let log = Protected([String]())
    private let finished = Protected([RequestMetrics]())
    private let retryDelays = Protected([TimeInterval]())

    var events: [String] { log.current }
    var delays: [TimeInterval] { retryDelays.current }
    var metrics: [RequestMetrics] { finished.current }

    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        log.withLock { $0.append("start \(attempt)") }
    }
    func requestDidAdapt(_ id: UUID, from original: URLRequest, to adapted: URLRequest) {
        log.withLock { $0.append("adapt") }
    }
    func requestWillRedirect(
        _ id: UUID, after response: HTTPURLResponse, to request: URLRequest, attempt: Int
    ) {
        log.withLock { $0.append("redirect \(response.statusCode) \(request.url?.path ?? "") \(attempt)") }
    }
    func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int) {
        log.withLock { $0.append("retry \(retryCount)") }
        retryDelays.withLock { $0.append(delay) }
    }
    func requestWillReconnect(
        _ id: UUID, after response: HTTPURLResponse?, error: NetworkError?, delay: TimeInterval
    ) {
        let status = response.map { String($0.statusCode) } ?? "none"
        log.withLock { $0.append("reconnect \(status) \(error.map { "\($0.kind)" } ?? "clean")") }
    }
    func requestWillSendOutboxEntry(_ id: UUID, entryID: UUID, outboxAttempt: Int) {
        log.withLock { $0.append("outbox \(entryID) \(outboxAttempt)") }
    }
    func requestDidFinish(_ metrics: RequestMetrics) {
        log.withLock { $0.append("finish") }
        finished.withLock { $0.append(metrics) }
    }
}

/// Collects logged lines.
final class LineSink: Sendable {
    private let storage = Protected([String]())
    var lines: [String] { storage.current }
    func write(_ line: String) { storage.withLock { $0.append(line) } }
}

@Suite("Event monitors, logging, cURL and redirects")
struct ObservabilityTests {
    let client = Client()

    @Test("Monitors hear start, adapt, retry and finish, with duration and byte counts")
    func monitorEvents() async throws {
        let monitor = RecordingMonitor()
        let session = Session {
            $0.interceptors.eventMonitors = [monitor]
            $0.interceptors.adapters = [BaseParameters(items: [URLQueryItem(name: "app", value: "demo")])]
        }
        _ = await client.request(TestForm(url: try await DemoServer.url("/status/503")), session: session)
            .retry(RetryPolicy(retryLimit: 1, baseDelay: 0.01)).handledString()
        #expect(monitor.events == ["adapt", "start 1", "retry 1", "adapt", "start 2", "finish"])
        let metrics = try #require(monitor.metrics.first)
        #expect(metrics.attempts == 2)
        #expect(metrics.error?.statusCode == 503)
        #expect(metrics.duration > 0)
        #expect(metrics.bytesReceived > 0)
        // An HTTPURLResponse does not tell its version; AsyncHTTPClient's response does.
        #expect(metrics.httpVersion == (TransportUnderTest.name == "URLSession" ? nil : "HTTP/1.1"))

        let upload = RecordingMonitor()
        let uploads = Session { $0.interceptors.eventMonitors = [upload] }
        _ = try await client.upload(
            TestDataUpload(url: try await DemoServer.url("/echo"), data: Data(count: 5000)), session: uploads
        ).data()
        #expect(upload.metrics.first?.bytesSent == 5000)
        #expect(upload.metrics.first?.error == nil)
    }

    @Test("Monitors hear each redirect that is followed, with its response and the next request")
    func monitorRedirects() async throws {
        let monitor = RecordingMonitor()
        let session = Session { $0.interceptors.eventMonitors = [monitor] }
        let base = try await DemoServer.baseURL()
        let form = TestForm(url: base + "/redirect", parameters: ["to": base + "/echo", "status": 302])
        _ = try await client.request(form, session: session).data()
        #expect(monitor.events == ["start 1", "redirect 302 /echo 1", "finish"])
        #expect(monitor.metrics.first?.response?.url?.path == "/echo")

        let refused = RecordingMonitor()
        let refusing = Session {
            $0.interceptors.eventMonitors = [refused]
            $0.redirectPolicy = .refuse
        }
        _ = await client.request(form, session: refusing).handledString()
        #expect(refused.events == ["start 1", "finish"])
    }

    @Test("A request's id is the same every time it is read, for monitors too, and unique")
    func requestIDs() async throws {
        let monitor = RecordingMonitor()
        let session = Session { $0.interceptors.eventMonitors = [monitor] }
        let url = try await DemoServer.url("/echo")
        let first = client.request(TestForm(url: url), session: session)
        let second = client.request(TestForm(url: url), session: session)
        _ = try await first.data()
        _ = try await second.data()
        #expect(first.id == first.id)
        #expect(first.id != second.id)
        #expect(Set(monitor.metrics.map(\.requestID)) == [first.id, second.id])
    }

    @Test("The console logger redacts Authorization, Cookie and configured keys")
    func loggerRedacts() async throws {
        let sink = LineSink()
        let logger = ConsoleLogger(
            redaction: Redaction(headers: ["X-Api-Key"], queryItems: ["token"]), write: sink.write)
        let session = Session { $0.interceptors.eventMonitors = [logger] }
        let form = TestForm(
            url: try await DemoServer.url("/echo"),
            headers: [
                "Authorization": "Bearer secret-1", "Cookie": "sid=secret-2", "X-Api-Key": "secret-3",
                "X-Visible": "shown",
            ],
            parameters: ["token": "secret-4", "city": "rome"])
        _ = try await client.request(form, session: session).data()
        let text = sink.lines.joined(separator: "\n")
        #expect(sink.lines.count == 2)
        #expect(text.contains("X-Visible: shown"))
        #expect(text.contains("city=rome"))
        #expect(text.contains("Authorization: <redacted>"))
        for secret in ["secret-1", "secret-2", "secret-3", "secret-4"] {
            #expect(!text.contains(secret))
        }
    }

    @Test("cURLDescription shows method, headers, body and URL, with credentials redacted")
    func cURL() async throws {
        let form = TestForm(
            url: try await DemoServer.url("/echo"), method: .post,
            headers: ["Authorization": "Bearer secret", "X-Quote": "it's"], parameters: ["a": "1"])
        let request = client.request(form)
        _ = try await request.data()
        let command = try #require(request.cURLDescription())
        #expect(command.hasPrefix("curl -v -X POST"))
        #expect(command.contains("-H 'Authorization: <redacted>'"))
        #expect(command.contains(#"-H 'X-Quote: it'\''s'"#))
        #expect(command.contains("--data-binary 'a=1'"))
        #expect(command.hasSuffix("/echo'"))
        #expect(!command.contains("secret"))
    }

    @Test("Authorization is kept on a redirect to the same host and dropped on one to another host")
    func redirectDropsCredentials() async throws {
        let base = try await DemoServer.baseURL()
        let otherHost = base.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let headers: HTTPHeaders = ["Authorization": "Bearer secret", "X-Other": "kept"]

        let sameHost = TestForm(url: base + "/redirect", headers: headers, parameters: ["to": base + "/echo"])
        let same = try await client.request(sameHost).decode(Echo.self)
        #expect(same.headers["authorization"] == "Bearer secret")

        let crossHost = TestForm(
            url: base + "/redirect", headers: headers, parameters: ["to": otherHost + "/echo"])
        let cross = try await client.request(crossHost).decode(Echo.self)
        #expect(cross.headers["x-other"] == "kept")
        #expect(cross.headers["authorization"] == nil)
    }
}
