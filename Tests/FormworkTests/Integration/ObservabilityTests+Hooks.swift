import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

extension ObservabilityTests {
    @Test("Monitors hear an event stream's reconnections: a clean end is no error, a dropped connection is")
    func monitorReconnects() async throws {
        let clean = RecordingMonitor()
        let cleanSession = Session { $0.interceptors.eventMonitors = [clean] }
        // Two events, a clean end, a new connection after 10 ms that gets 204: the stream is over.
        let cleanURL = try await DemoServer.url(
            "/sse?key=\(UUID().uuidString)&count=2&total=2&end=clean&retry=10")
        let cleanEvents = try await collect(cleanSession.stream(TestForm(url: cleanURL)).events())
        #expect(cleanEvents.count == 2)
        // The reader sees the stream end before the monitors hear the request's end.
        await eventually("the request's end") { clean.metrics.count == 1 }
        #expect(clean.events == ["start 1", "reconnect 200 clean", "start 2", "finish"])
        #expect(clean.metrics.first?.response?.statusCode == 204)

        let dropped = RecordingMonitor()
        let droppedSession = Session { $0.interceptors.eventMonitors = [dropped] }
        // One event, then half of the next and the connection drops; the next connection gets 204.
        let droppedURL = try await DemoServer.url(
            "/sse?key=\(UUID().uuidString)&count=1&total=1&end=drop&retry=10")
        let droppedEvents = try await collect(droppedSession.stream(TestForm(url: droppedURL)).events())
        #expect(droppedEvents.count == 1)
        await eventually("the request's end") { dropped.metrics.count == 1 }
        #expect(dropped.events == ["start 1", "reconnect 200 transport", "start 2", "finish"])
    }

    @Test("Monitors hear which outbox entry and which of its attempts a request sends, before it starts")
    func monitorOutboxSends() async throws {
        let monitor = RecordingMonitor()
        let session = Session { $0.interceptors.eventMonitors = [monitor] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outbox = try Outbox(
            directory: folder, session: session,
            options: Outbox.Options(backoff: RetryPolicy(retryLimit: 5, baseDelay: 0.01)))
        // The first attempt gets a 503; the outbox waits and sends the entry again, as a new request.
        let url = try await DemoServer.url("/fault/burst?key=\(UUID().uuidString)&failures=1&status=503")
        var deliveries = outbox.deliveries().makeAsyncIterator()
        let entry = try await outbox.enqueue(TestForm(url: url, method: .put))
        let delivery = try #require(await deliveries.next())
        await outbox.close()
        #expect(delivery.attempts == 2)
        #expect(
            monitor.events == [
                "outbox \(entry.id) 1", "start 1", "finish", "outbox \(entry.id) 2", "start 1", "finish",
            ])
    }
}
