import ExampleSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One direction of a simulated link: bytes read from one socket are queued with the time they
/// reach the other end, and written to the other socket at that time.
///
/// The model is a bottleneck followed by a wire: a chunk of `n` bytes read at `t` starts crossing
/// when the link is free (`max(t, free)`), occupies it for `n / rate`, and arrives half a round
/// trip after it has crossed. The queue is bounded (`bufferLimit(for:)`): when the receiver reads
/// slowly, the reader stops reading and the sender's TCP window fills, as on a real link.
final class LinkDirection: @unchecked Sendable {  // every mutable field is guarded by `condition`
    private struct Chunk {
        let bytes: [UInt8]
        let arrival: Double
    }

    private let condition = NSCondition()
    private var queue: [Chunk] = []
    private var head = 0
    private var queued = 0
    private var ended = false
    private var abandoned = false
    private var free: Double
    private let link: LinkSpec
    private let limit: Int

    /// The most bytes one direction holds: the bytes in flight at full rate (rate × rtt), doubled,
    /// and at least 1 MiB, like a tuned TCP window on a path of this length.
    static func bufferLimit(for link: LinkSpec) -> Int {
        max(1 << 20, Int(2 * link.bytesPerSecond * link.roundTripSeconds))
    }

    /// - Parameters:
    ///   - link: The link's rate and round-trip time.
    ///   - firstDeparture: The earliest time (monotonic seconds) the first byte may start crossing.
    ///   - limit: The most bytes queued at once.
    init(link: LinkSpec, firstDeparture: Double, limit: Int) {
        self.link = link
        self.free = firstDeparture
        self.limit = limit
    }

    /// Reads `source` until it ends or fails, queueing each chunk with its arrival time.
    func read(from source: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            condition.lock()
            guard count > 0, !abandoned else {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let start = max(Monotonic.now(), free)
            free = start + Double(count) / link.bytesPerSecond
            queue.append(Chunk(bytes: Array(buffer[0..<count]), arrival: free + link.roundTripSeconds / 2))
            queued += count
            condition.broadcast()
            while queued >= limit, !abandoned { condition.wait() }
            condition.unlock()
        }
    }

    /// Writes each queued chunk to `destination` when it arrives; at the end of the stream, shuts
    /// down `destination`'s sending side. Returns `false` when a write failed.
    func write(to destination: Int32) -> Bool {
        while true {
            condition.lock()
            while head == queue.count, !ended, !abandoned { condition.wait() }
            if abandoned || head == queue.count {
                condition.unlock()
                if !abandoned { shutdown(destination, Int32(SHUT_WR)) }
                return !abandoned
            }
            let chunk = queue[head]
            condition.unlock()
            Monotonic.sleep(until: chunk.arrival)
            guard sendAll(chunk.bytes, to: destination) else { return false }
            condition.lock()
            head += 1
            queued -= chunk.bytes.count
            if head >= 64, head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Ends both threads of this direction (the connection is being torn down).
    func abandon() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }

    private func sendAll(_ bytes: [UInt8], to destination: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                // No SIGPIPE for a peer that went away (Linux flag; the proxy ignores SIGPIPE too).
                #if os(Linux)
                    return send(destination, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    return send(destination, base + offset, raw.count - offset, 0)
                #endif
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
