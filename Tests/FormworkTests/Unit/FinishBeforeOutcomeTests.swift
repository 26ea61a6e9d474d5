import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport whose exchanges answer `200 {}` on a dispatch queue of their own.
private struct QueueTransport: Transport {
    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        QueueTask(url: request.urlRequest.url, events: events)
    }
}

private final class QueueTask: TransportTask {
    let url: URL?
    let events: any TransportEvents

    init(url: URL?, events: any TransportEvents) {
        self.url = url
        self.events = events
    }

    func resume() {
        DispatchQueue.global().async { [url, events] in
            guard let url else { return events.finish(URLError(.badURL)) }
            let head = TransportResponseHead(url: url, statusCode: 200, headerFields: [])
            if events.receiveResponseHead(head) { events.receiveBody(Data("{}".utf8)) }
            events.finish(nil)
        }
    }

    func cancel() {}
}

/// A monitor that holds the thread telling it of a request's end until the test lets it go.
private final class HeldFinishMonitor: EventMonitor {
    private struct State {
        var entered = false
        var open = false
        var left = false
    }

    private let state = Protected(State())
    private let condition = NSCondition()

    var entered: Bool { state.withLock { $0.entered } }
    var left: Bool { state.withLock { $0.left } }

    func open() {
        condition.lock()
        state.withLock { $0.open = true }
        condition.broadcast()
        condition.unlock()
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        state.withLock { $0.entered = true }
        condition.lock()
        while !state.withLock({ $0.open }) { condition.wait() }
        condition.unlock()
        state.withLock { $0.left = true }
    }
}

@Suite("The end reaches the monitors before any task has the outcome")
struct FinishBeforeOutcomeTests {
    @Test("A task that awaits, or a handler chained, while a monitor is told of the end waits for it")
    func lateAwaiterWaitsForTheMonitors() async throws {
        let monitor = HeldFinishMonitor()
        let session = Session {
            $0.transport = QueueTransport()
            $0.interceptors.eventMonitors = [monitor]
        }
        let request = Client().request(TestForm(url: "http://finish.invalid/a"), session: session).resume()
        await eventually("the monitor is told of the end") { monitor.entered }
        // The outcome is recorded and the monitor still runs: a task awaiting now must wait.
        let late = Task { () -> Bool in
            _ = try? await request.data()
            return monitor.left
        }
        let handled = Protected<Bool?>(nil)
        request.response { _ in handled.withLock { $0 = monitor.left } }
        await eventually("the late task waits") {
            request.core.state.withLock { $0.waitingTask != nil || !$0.otherWaits.isEmpty }
        }
        monitor.open()
        #expect(await late.value)
        // A handler chained meanwhile runs after the monitors too.
        await eventually("the handler runs") { handled.withLock { $0 != nil } }
        #expect(handled.withLock { $0 } == true)
    }
}
