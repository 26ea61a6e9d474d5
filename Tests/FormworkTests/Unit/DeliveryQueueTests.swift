import Foundation
import Testing

@testable import Formwork

/// The session's delegate queue slows its producer down when its consumer falls behind, without
/// ever waiting on itself or waiting for ever.
@Suite("Delivery queue back-pressure", .timeLimit(.minutes(1)))
struct DeliveryQueueTests {
    /// A gate the consumer waits at, and the order operations ran in.
    private final class Recorder: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let ran = Protected<[Int]>([])

        func record(_ number: Int) { ran.withLock { $0.append(number) } }
    }

    /// Runs `body` on a thread of its own (as libcurl's queue is, and so that blocking calls stay
    /// off the concurrency pool) and returns its result when it ends.
    private func onThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: body())
            }
        }
    }

    /// Adds `count` operations that record their number; the first one waits at the gate.
    private func produce(_ count: Int, on queue: DeliveryQueue, recorder: Recorder) {
        for number in 0..<count {
            queue.addOperation {
                if number == 0 { recorder.gate.wait() }
                recorder.record(number)
            }
        }
    }

    /// Waits, off the concurrency pool, until the queue has run everything added so far.
    private func drain(_ queue: DeliveryQueue) async {
        await onThread { queue.waitUntilAllOperationsAreFinished() }
    }

    @Test("A producer waits once the consumer is behind by the high-water mark, and goes on after it drains")
    func producerWaitsAboveHighWater() async throws {
        let limits = DeliveryQueue.Limits(highWater: 4, lowWater: 1, maximumWait: 30)
        let queue = DeliveryQueue(name: "test.delivery", limits: limits)
        let recorder = Recorder()
        async let produced: Void = onThread { produce(12, on: queue, recorder: recorder) }
        // The consumer is stuck at the gate: the producer must end up waiting, with 4 pending.
        let waiting = await onThread { queue.waitForWaitingCaller(timeout: 20) }
        #expect(waiting)
        let blocked = queue.statistics
        #expect(blocked.waiting == 1)
        #expect(blocked.peakPending == 4)
        #expect(recorder.ran.current.isEmpty)
        recorder.gate.signal()
        await produced
        await drain(queue)
        let done = queue.statistics
        #expect(recorder.ran.current == Array(0..<12))
        #expect(done.waits >= 1)
        #expect(done.timedOutWaits == 0)
        #expect(done.peakPending <= limits.highWater)
        #expect(done.waiting == 0)
    }

    @Test("Work added by a callback running on the queue itself never waits")
    func callbackNeverWaitsOnItself() async throws {
        let limits = DeliveryQueue.Limits(highWater: 2, lowWater: 0, maximumWait: 10)
        let queue = DeliveryQueue(name: "test.delivery", limits: limits)
        let recorder = Recorder()
        queue.addOperation {
            // Running on the queue: these 10 additions would wait for this very operation.
            for number in 1...10 {
                queue.addOperation { recorder.record(number) }
            }
            recorder.record(0)
        }
        await drain(queue)
        let statistics = queue.statistics
        #expect(recorder.ran.current == Array(0...10))
        #expect(statistics.waits == 0)
        #expect(statistics.peakPending == 11)
    }

    @Test(
        "A consumer stuck for a whole maximum wait lets the work in, and nothing waits again until it moves")
    func stuckConsumerIsNotWaitedFor() async throws {
        let limits = DeliveryQueue.Limits(highWater: 1, lowWater: 0, maximumWait: 0.1)
        let queue = DeliveryQueue(name: "test.delivery", limits: limits)
        let recorder = Recorder()
        // The consumer stays at the gate until the producer is done: one wait times out, and the
        // later additions (one socket read's chunks, say) do not wait their own maximum each.
        await onThread { produce(4, on: queue, recorder: recorder) }
        let blocked = queue.statistics
        #expect(blocked.waits == 1)
        #expect(blocked.timedOutWaits == 1)
        #expect(blocked.peakPending == 4)
        #expect(recorder.ran.current.isEmpty)
        recorder.gate.signal()
        await drain(queue)
        #expect(recorder.ran.current == Array(0..<4))
    }
}
