import Foundation
import Testing

@testable import Formwork

/// The built-in transport's delivery queue runs a block added while it is idle at once, on the
/// adding thread, and keeps the order of everything else (corelibs only).
@Suite("Delivery queue: blocks run inline when idle", .timeLimit(.minutes(1)))
struct DeliveryQueueInlineTests {
    /// Waits, off the concurrency pool, until the queue has run everything added so far.
    private func drain(_ queue: DeliveryQueue) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                queue.waitUntilAllOperationsAreFinished()
                continuation.resume()
            }
        }
    }

    #if canImport(FoundationNetworking)
        @Test("A block added while the queue is idle has run, marked inline, when the call returns")
        func idleBlockRunsAtOnce() async {
            let queue = DeliveryQueue(name: "test.inline", runsIdleBlocksInline: true)
            let seen = Protected<[Bool]>([])
            queue.addOperation { seen.withLock { $0.append(DeliveryQueue.runningInline === queue) } }
            #expect(seen.current == [true])
            #expect(DeliveryQueue.runningInline == nil)
            queue.addOperation { seen.withLock { $0.append(DeliveryQueue.runningInline === queue) } }
            #expect(seen.current == [true, true])
            await drain(queue)
        }

        @Test(
            "Work an inline block moves to the queue runs on the queue's thread after it, before blocks added meanwhile"
        )
        func movedWorkKeepsTheOrder() async {
            let queue = DeliveryQueue(name: "test.inline", runsIdleBlocksInline: true)
            let log = Protected<[String]>([])
            queue.addOperation {
                log.withLock { $0.append("inline") }
                queue.runAfterInlineBlock {
                    let onQueue = DeliveryQueue.running === queue && DeliveryQueue.runningInline == nil
                    log.withLock { $0.append(onQueue ? "moved, on the queue" : "moved, elsewhere") }
                }
                // Another thread adds a block while this one runs: it waits its turn.
                let added = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    queue.addOperation { log.withLock { $0.append("added meanwhile") } }
                    added.signal()
                }
                added.wait()
                log.withLock { $0.append("inline, end") }
            }
            await drain(queue)
            #expect(log.current == ["inline", "inline, end", "moved, on the queue", "added meanwhile"])
        }
    #endif

    @Test("A queue without the option never runs a block on the adding thread")
    func withoutTheOptionNothingRunsInline() async {
        let queue = DeliveryQueue(name: "test.inline")
        let seen = Protected<[Bool]>([])
        queue.addOperation { seen.withLock { $0.append(DeliveryQueue.running === queue) } }
        await drain(queue)
        #expect(seen.current == [true])
    }
}
