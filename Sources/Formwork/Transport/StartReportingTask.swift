import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport's task that tells its request's `reportStart` what it sends, just before it
/// starts (see ``TransportRequest``): how a layer reports an exchange it passes on as it is.
final class StartReportingTask: TransportTask {
    /// The transport's task.
    private let task: any TransportTask
    /// What the task sends.
    private let sending: URLRequest
    /// Told once, on the first resume.
    private let report: Protected<(@Sendable (_ sent: URLRequest, _ sharingWith: UUID?) -> Void)?>

    /// Wraps `task`, which sends `sending`.
    init(
        _ task: any TransportTask, sending: URLRequest,
        report: @escaping @Sendable (_ sent: URLRequest, _ sharingWith: UUID?) -> Void
    ) {
        self.task = task
        self.sending = sending
        self.report = Protected(report)
    }

    func resume() {
        report.withLock { $0.take() }?(sending, nil)
        task.resume()
    }

    func cancel() {
        task.cancel()
    }
}

/// A layer that only reports what each exchange sends (see ``StartReportingTask``): what a
/// session with event monitors uses when no other layer (coalescing) reports it.
struct StartReportingTransport: Transport {
    /// The transport under the layer.
    let base: any Transport

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        let task = base.makeTask(for: request, events: events)
        guard let report = request.reportStart else { return task }
        return StartReportingTask(task, sending: request.urlRequest, report: report)
    }

    func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool {
        base.enforcesIdleTimeout(of: seconds)
    }
}
