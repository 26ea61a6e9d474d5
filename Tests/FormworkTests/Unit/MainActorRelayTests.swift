import Foundation
import Testing

@testable import Formwork

@Suite("MainActorRelay: coalescing and throttling")
@MainActor
struct MainActorRelayTests {
    /// What a relay delivered, with a counter to wait on.
    @MainActor
    final class Deliveries<Value: Sendable> {
        private(set) var values: [Value] = []
        let counter = EventCounter()

        func add(_ value: Value) {
            values.append(value)
            counter.increment()
        }
    }

    @Test("Values posted in one burst are delivered once, the newest")
    func burstCoalesces() async {
        let deliveries = Deliveries<Int>()
        let relay = MainActorRelay<Int> { deliveries.add($0) }
        for value in 1...50 { relay.post(value) }
        await deliveries.counter.wait(for: 1)
        #expect(deliveries.values == [50])
    }

    @Test("With an interval, posts spread over time are delivered less often than posted, the last always")
    func intervalThrottles() async {
        let deliveries = Deliveries<Int>()
        // An interval no run of this test lasts, so that what is delivered does not depend on
        // how fast the machine is (with 50 ms, a slow run under TSan delivered every post).
        let relay = MainActorRelay<Int>(minimumInterval: 60) { deliveries.add($0) }
        relay.post(0)
        await deliveries.counter.wait(for: 1)
        // 20 posts, each on its own main-actor turn: without the interval each would be delivered.
        for value in 1...20 {
            relay.post(value)
            await Task.yield()
        }
        relay.flush()  // what the end of a stream does: the newest value, now
        #expect(deliveries.values == [0, 20])
    }

    @Test("A merge keeps every connection change in order and only the newest item")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func streamUpdateMerge() {
        var pending: StreamModelUpdate<Int>? = nil
        let posted: [StreamModelUpdate<Int>] = [
            .init(connection: .open), .init(value: 1), .init(value: 2),
            .init(connection: .reconnecting(after: 1)),
            .init(connection: .connecting), .init(value: 3),
        ]
        for update in posted { pending = StreamModelUpdate.merge(pending, update) }
        #expect(pending?.connections == [.open, .reconnecting(after: 1), .connecting])
        #expect(pending?.value == 3)
    }

    @Test("Progress never goes backwards within an attempt, but a new attempt starts again")
    func progressStaysMonotonic() async {
        let deliveries = Deliveries<Int64>()
        let relay = ProgressRelay { deliveries.add($0.completedBytes) }
        relay.post(TransferProgress(completedBytes: 10, totalBytes: 100), attempt: 1)
        relay.flush()
        relay.post(TransferProgress(completedBytes: 5, totalBytes: 100), attempt: 1)
        relay.flush()
        relay.post(TransferProgress(completedBytes: 10, totalBytes: 100), attempt: 1)
        relay.flush()
        relay.post(TransferProgress(completedBytes: 3, totalBytes: 100), attempt: 2)
        relay.flush()
        #expect(deliveries.values == [10, 3])
    }
}
