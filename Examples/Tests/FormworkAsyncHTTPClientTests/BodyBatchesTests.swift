import Foundation
import NIOCore
import NIOFoundationCompat
import Testing

@testable import FormworkAsyncHTTPClient

/// How a body that may block is batched on its way to Formwork, without a network: the first part
/// goes as it is, the parts that arrive meanwhile go together, in order, with bounded memory.
@Suite("AsyncHTTPClient transport: body batches")
struct BodyBatchesTests {
    /// A part of `count` bytes, each `value`.
    private func part(_ value: UInt8, count: Int = 1000) -> ByteBuffer {
        ByteBuffer(repeating: value, count: count)
    }

    /// The address of a buffer's memory.
    private func address(_ buffer: ByteBuffer) -> UInt {
        buffer.withVeryUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("A part that finds the receiver idle is handed over as it is")
    func idleReceiverTakesThePart() {
        var batches = BodyBatches(limit: 1 << 20)
        let first = part(1)
        #expect(batches.receive(first) == .handOver(first))
        #expect(batches.isReceiving)
        var none: ByteBuffer?
        #expect(batches.next(givingBack: &none) == nil)
        #expect(!batches.isReceiving)
        // Idle again: the next part goes as it is too.
        #expect(batches.receive(part(2)) == .handOver(part(2)))
    }

    @Test("Parts that arrive while the receiver is busy go in one batch, in order")
    func busyReceiverGetsOneBatch() {
        var batches = BodyBatches(limit: 1 << 20)
        _ = batches.receive(part(1))
        for value in UInt8(2)...5 {
            #expect(batches.receive(part(value)) == .gathered(full: false))
        }
        #expect(batches.gatheredBytes == 4000)
        var none: ByteBuffer?
        let batch = batches.next(givingBack: &none)
        let expected = (UInt8(2)...5).flatMap { [UInt8](repeating: $0, count: 1000) }
        #expect(batch.map { Array($0.readableBytesView) } == expected)
        #expect(batches.isReceiving)
        #expect(batches.gatheredBytes == 0)
        #expect(batches.next(givingBack: &none) == nil)
        #expect(!batches.isReceiving)
    }

    @Test("Gathering reaches the limit: reading pauses, and memory stays within two batches")
    func fullAtTheLimit() {
        let limit = 10_000
        var batches = BodyBatches(limit: limit)
        _ = batches.receive(part(0, count: 4000))
        var arrivals: [BodyBatches.Arrival] = []
        for _ in 0..<3 { arrivals.append(batches.receive(part(1, count: 4000))) }
        #expect(arrivals == [.gathered(full: false), .gathered(full: false), .gathered(full: true)])
        var none: ByteBuffer?
        let batch = batches.next(givingBack: &none)
        #expect(batch?.readableBytes == 12_000)
        // While that batch is received, the next one fills up.
        for _ in 0..<3 { _ = batches.receive(part(2, count: 4000)) }
        #expect(batches.maximumHeldBytes == 24_000)
        #expect(batches.maximumHeldBytes <= 2 * (limit + 4000))
    }

    @Test("A received batch's buffer is reused for the next gathering: no allocation per batch")
    func buffersAreReused() {
        var batches = BodyBatches(limit: 1 << 20)
        _ = batches.receive(part(0))
        _ = batches.receive(part(1))
        var none: ByteBuffer?
        var received = batches.next(givingBack: &none)
        let first = received.map(address)
        // Gathered into a second buffer while the first is received.
        _ = batches.receive(part(2))
        let second = batches.next(givingBack: &received)
        #expect(received == nil)
        // The first buffer, given back, takes the next gathering.
        _ = batches.receive(part(3))
        var used = second
        let third = batches.next(givingBack: &used)
        #expect(third.map(address) == first)
        #expect(third.map { Array($0.readableBytesView) } == [UInt8](repeating: 3, count: 1000))
    }

    @Test("A batch someone still holds is not written over")
    func heldBatchIsKept() throws {
        var batches = BodyBatches(limit: 1 << 20)
        _ = batches.receive(part(0))
        _ = batches.receive(part(1))
        var none: ByteBuffer?
        var received = batches.next(givingBack: &none)
        // The receiver keeps the bytes (as a stream's reader may).
        let kept = try Data(buffer: #require(received), byteTransferStrategy: .noCopy)
        _ = batches.receive(part(2))
        let next = batches.next(givingBack: &received)
        _ = batches.receive(part(3))
        var used = next
        _ = batches.next(givingBack: &used)
        #expect(kept == Data(repeating: 1, count: 1000))
    }

    @Test("A discarded gathering is not delivered")
    func discardDropsTheGathered() {
        var batches = BodyBatches(limit: 1 << 20)
        _ = batches.receive(part(0))
        _ = batches.receive(part(1))
        batches.discard()
        var none: ByteBuffer?
        #expect(batches.next(givingBack: &none) == nil)
        #expect(!batches.isReceiving)
    }
}
