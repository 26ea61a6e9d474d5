import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A download whose delegate work falls behind a fast local server: the session's delivery queue
/// holds libcurl back instead of queueing the whole body in memory.
@Suite("Download back-pressure", .timeLimit(.minutes(2)))
struct DownloadBackPressureTests {
    let client = Client()

    @Test("A download whose consumer stalls holds the network back, then finishes with identical bytes")
    func stalledConsumer() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size: Int64 = 32 << 20  // 2,048 chunks of 16 KiB: four times what the queue lets wait
        let tag = uniqueDownloadTag()
        let session = Session()
        let queue = session.deliveryQueue
        let form = TestDownloadForm(
            url: try await DemoServer.url("/files/\(size)?tag=\(tag)"), destination: scratch.file("big"))
        let request = client.download(form, session: session)
        let stalled = Protected(false)
        let producerWaited = Protected<Bool?>(nil)
        // Progress observers run on the delivery queue: the first one there stops the consumer
        // until libcurl's side has to wait for it (or 60 s pass, and the test fails).
        // Only at a chunk: at the response, corelibs holds the body back until the callback returns.
        request.core.addProgressObserver { progress, _ in
            guard DeliveryQueue.running === queue, progress.completedBytes > 0, !stalled.withLock({ $0 })
            else { return }
            stalled.withLock { $0 = true }
            let waited = queue.waitForWaitingCaller(timeout: 60)
            producerWaited.withLock { $0 = waited }
        }
        let file = try await request.fileURL()
        #expect(producerWaited.current == true)
        #expect(try await matchesServerFile(file, size: size))
        #expect(try await TagCounters.read(tag).requests == 1)
        let statistics = queue.statistics
        #expect(statistics.waits >= 1)
        // Unless the consumer was judged stuck (its thread not scheduled for a whole maximum wait
        // on a busy machine), nothing more than the high-water mark was ever pending.
        #expect(statistics.timedOutWaits > 0 || statistics.peakPending <= queue.limits.highWater)
    }
}
