import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Where the built-in transport's completion of a request runs on Linux: in the task that awaits
/// the request's outcome when one does (no hand-over to the delivery queue's thread first), on
/// the delivery queue otherwise, and never on libcurl's own queue. URLSession-only: not linked
/// into the behaviour suite over AsyncHTTPClient.
@Suite("Where a completion runs, against the demo server")
struct AwaitedCompletionTests {
    let client = Client()

    /// Where a custom validation ran: on a delivery queue, and on a block run inline on libcurl's
    /// queue.
    struct Place: Equatable, Sendable {
        let onDeliveryQueue: Bool
        let onLibcurlQueue: Bool

        static var here: Place {
            Place(
                onDeliveryQueue: DeliveryQueue.running != nil,
                onLibcurlQueue: DeliveryQueue.runningInline != nil)
        }
    }

    /// A session with nothing between the request and the built-in transport (coalescing off).
    let session = Session { $0.coalescesRequests = false }

    @Test(
        "An awaited request's completion runs in the awaiting task, not on a queue of URLSession's",
        arguments: [false, true])
    func awaitedCompletionRunsInTheTask(coalescing: Bool) async throws {
        // With coalescing on, the shared task's completion goes to the first request that awaits.
        let session = coalescing ? Session() : session
        for _ in 0..<5 {
            let place = Protected<Place?>(nil)
            let data = try await client.request(
                TestForm(url: try await DemoServer.url("/weather?city=oslo")), session: session
            )
            .validate { _, _, _ in place.withLock { $0 = .here } }
            .data()
            #expect(!data.isEmpty)
            #if canImport(FoundationNetworking)
                #expect(place.current == Place(onDeliveryQueue: false, onLibcurlQueue: false))
            #else
                #expect(place.current == Place(onDeliveryQueue: true, onLibcurlQueue: false))
            #endif
        }
    }

    @Test("A request nobody awaits completes on the delivery queue, never on libcurl's queue")
    func chainedCompletionRunsOnTheQueue() async throws {
        let place = Protected<Place?>(nil)
        let done = EventCounter()
        client.request(TestForm(url: try await DemoServer.url("/weather?city=oslo")), session: session)
            .validate { _, _, _ in place.withLock { $0 = .here } }
            .response { _ in done.increment() }
        await done.wait(for: 1)
        #expect(place.current == Place(onDeliveryQueue: true, onLibcurlQueue: false))
    }
}
