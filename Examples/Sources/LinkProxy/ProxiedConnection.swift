import ExampleSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection and its connection to the server: two `LinkDirection`s, each with a
/// reading and a writing thread. The sockets close when all four threads are done.
final class ProxiedConnection: Sendable {
    private let client: Int32
    private let server: Int32
    private let upstream: LinkDirection
    private let downstream: LinkDirection
    private let running = ThreadCount(4)

    /// - Parameters:
    ///   - client: The accepted socket.
    ///   - server: The socket connected to the server.
    ///   - link: The link to simulate.
    ///   - accepted: When the client connected (monotonic seconds): its first bytes cannot leave
    ///     before the TCP handshake's round trip has passed.
    init(client: Int32, server: Int32, link: LinkSpec, accepted: Double) {
        self.client = client
        self.server = server
        let limit = LinkDirection.bufferLimit(for: link)
        upstream = LinkDirection(
            link: link, firstDeparture: accepted + link.roundTripSeconds, limit: limit)
        downstream = LinkDirection(link: link, firstDeparture: accepted, limit: limit)
    }

    /// Starts the four threads.
    func start() {
        for (direction, source, destination) in [(upstream, client, server), (downstream, server, client)] {
            spawn { direction.read(from: source) }
            spawn { [client, server] in
                if !direction.write(to: destination) {
                    // A peer went away mid-write: tear the whole connection down so every thread ends.
                    shutdown(client, Int32(SHUT_RDWR))
                    shutdown(server, Int32(SHUT_RDWR))
                    self.upstream.abandon()
                    self.downstream.abandon()
                }
            }
        }
    }

    private func spawn(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            work()
            if running.finishOne() {
                close(client)
                close(server)
            }
        }
        thread.stackSize = 256 << 10
        thread.start()
    }
}

/// Counts running threads down to zero.
final class ThreadCount: @unchecked Sendable {  // `count` is only touched while holding `lock`
    private let lock = NSLock()
    private var count: Int

    init(_ count: Int) {
        self.count = count
    }

    /// One thread is done; `true` for the last one.
    func finishOne() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        count -= 1
        return count == 0
    }
}

/// Monotonic time in seconds.
enum Monotonic {
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Sleeps until `deadline` (monotonic seconds); returns at once when it has passed.
    static func sleep(until deadline: Double) {
        let remaining = deadline - now()
        guard remaining > 0 else { return }
        var request = timespec(tv_sec: Int(remaining), tv_nsec: Int((remaining - floor(remaining)) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0, errno == EINTR { request = left }
    }
}
