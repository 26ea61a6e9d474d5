import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Requests that nothing watches while they move take their response in one completion handler;
/// the others go through the session delegate's task events (see `deliversAtCompletion`).
@Suite("Delegate events only for requests that are watched", .timeLimit(.minutes(5)))
struct DeliveryPathTests {
    let client = Client()

    /// Waits until `request`'s URLSession task exists, then returns how many tasks `session`
    /// routes through its delegate's events.
    /// How many tasks the session routes through its delegate once `request`'s URLSession task
    /// runs; `nil` (and an issue) when the request ended before its task was seen (it used to
    /// loop for good then).
    private func routedWhileRunning(
        _ request: some Request, in session: Session, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int? {
        await eventually("the request's URLSession task runs", within: 60, sourceLocation: sourceLocation) {
            (request.core.transportTask as? URLSessionTransportTask)?.task != nil || request.isFinished
        }
        guard (request.core.transportTask as? URLSessionTransportTask)?.task != nil else {
            Issue.record(
                "The request ended (or never ran) before its task was seen", sourceLocation: sourceLocation)
            return nil
        }
        return session.router.eventRoutedTaskCount
    }

    @Test("A plain request is not routed through the delegate; one with a progress observer is")
    func paths() async throws {
        let session = Session()
        // Slow enough to be still running when checked, even under TSan on a busy machine (the
        // whole suite there has held test tasks back for over 20 s); each is cancelled after.
        let slow = try await DemoServer.url("/slow?ms=60000")
        let plain = client.request(TestForm(url: slow), session: session).resume()
        #expect(try await routedWhileRunning(plain, in: session) == 0)
        plain.cancel()

        let watched = client.request(TestForm(url: slow), session: session)
        _ = watched.progressUpdates
        #expect(try await routedWhileRunning(watched, in: session) == 1)
        watched.cancel()
        #expect(session.router.routedTaskCount == 0)

        let quick = client.request(TestForm(url: try await DemoServer.url("/html")), session: session)
        let updates = quick.progressUpdates
        let body = try await quick.data()
        var last: TransferProgress?
        for await progress in updates { last = progress }
        #expect(last == TransferProgress(completedBytes: Int64(body.count), totalBytes: Int64(body.count)))
    }

    @Test("Event monitors keep the delegate path, so their byte counts stay exact")
    func monitored() async throws {
        let session = Session { $0.interceptors.eventMonitors = [RecordingMonitor()] }
        let request = client.request(
            TestForm(url: try await DemoServer.url("/slow?ms=60000")), session: session
        ).resume()
        #expect(try await routedWhileRunning(request, in: session) == 1)
        request.cancel()
    }

    @Test("An observer added after an unwatched upload finished hears its final progress")
    func lateObserver() async throws {
        let payload = Data(repeating: 7, count: 100_000)
        let request = client.upload(TestDataUpload(url: try await DemoServer.url("/upload"), data: payload))
        _ = try await request.data()
        var values: [TransferProgress] = []
        for await progress in request.progressUpdates { values.append(progress) }
        #expect(values == [TransferProgress(completedBytes: 100_000, totalBytes: 100_000)])
    }

    @Test("A failed unwatched request keeps its status, body and error, as on the delegate path")
    func failure() async throws {
        let response = await client.request(TestForm(url: try await DemoServer.url("/status/503"))).response()
        #expect(response.response?.statusCode == 503)
        #expect(response.error?.statusCode == 503)
        #expect(String(decoding: response.data ?? Data(), as: UTF8.self) == #"{"status":503}"#)
    }
}
