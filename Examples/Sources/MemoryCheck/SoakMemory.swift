import ExampleSupport
import Formwork
import FormworkAsyncHTTPClient
import Foundation

/// `MemoryCheck soak [--count N] [--transport urlsession|ahc] [--limit-mib MIB]`: sends N small GETs
/// (default 20,000; 64 in flight) from one session with the defaults (identical requests in flight
/// share one network request), one in ten answered 404 and one in ten cancelled 0-3 ms after it
/// started, and checks that the peak RSS grows less than the limit (default 16 MiB) after the first
/// tenth: nothing of a finished, failed or cancelled request may stay. (A shared network request
/// and its events once kept each other alive for good, and with them the transport's task:
/// about 4 KiB for every request, which a soak with cancels showed first.)
enum SoakMemory {
    private struct GetForm: RequestFormable {
        let url: String
    }

    static func run(_ arguments: [String]) async {
        let count = MemoryCheck.value(after: "--count", in: arguments).flatMap(Int.init) ?? 20_000
        let transport = MemoryCheck.value(after: "--transport", in: arguments) ?? "urlsession"
        let limit = (MemoryCheck.value(after: "--limit-mib", in: arguments).flatMap(Int64.init) ?? 16) << 20
        guard count >= 100, ["urlsession", "ahc"].contains(transport) else {
            print(
                "usage: MemoryCheck soak [--count N (≥ 100)] [--transport urlsession|ahc] [--limit-mib MIB]")
            exit(2)
        }
        do {
            let server = try DemoServerProcess()
            let session = Session { configuration in
                if transport == "ahc" { configuration.transport = AsyncHTTPClientTransport() }
            }
            let started = Date()
            let warmUp = count / 10
            var tally = try await send(warmUp, from: 0, to: server.baseURL, on: session)
            let baseline = peakResidentBytes()
            tally.add(try await send(count - warmUp, from: warmUp, to: server.baseURL, on: session))
            withExtendedLifetime(server) {}
            let elapsed = Date().timeIntervalSince(started)
            let growth = peakResidentBytes() - baseline
            print(
                "MemoryCheck soak (\(transport)): \(count) GETs in \(String(format: "%.1f", elapsed)) s "
                    + "(\(tally.succeeded) 200, \(tally.notFound) 404, \(tally.cancelled) cancelled); "
                    + "peak RSS \(formatBytes(peakResidentBytes())), growth after the first \(warmUp) "
                    + "\(formatBytes(growth)) (\(growth / Int64(count - warmUp)) B a request); "
                    + "limit \(formatBytes(limit)) growth")
            guard tally.total == count, tally.cancelled > 0, tally.notFound > 0 else {
                print("MemoryCheck FAIL: the soak did not run as planned: \(tally)")
                exit(1)
            }
            guard growth < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(growth)), over the limit")
                exit(1)
            }
            print("MemoryCheck soak OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }

    /// How the requests ended.
    struct Tally: Sendable, CustomStringConvertible {
        var succeeded = 0
        var notFound = 0
        var cancelled = 0
        var total: Int { succeeded + notFound + cancelled }
        var description: String { "\(succeeded) 200, \(notFound) 404, \(cancelled) cancelled" }

        mutating func add(_ other: Tally) {
            succeeded += other.succeeded
            notFound += other.notFound
            cancelled += other.cancelled
        }
    }

    private enum Ending: Sendable {
        case succeeded, notFound, cancelled
    }

    /// Sends `count` GETs numbered from `first`, 64 at a time; an unexpected outcome ends the check.
    private static func send(_ count: Int, from first: Int, to base: String, on session: Session) async throws
        -> Tally
    {
        try await withThrowingTaskGroup(of: Ending.self) { group in
            var next = first
            var tally = Tally()
            func add() {
                let index = next
                next += 1
                group.addTask { try await one(index, base: base, session: session) }
            }
            while next < first + min(64, count) { add() }
            while let ending = try await group.next() {
                switch ending {
                case .succeeded: tally.succeeded += 1
                case .notFound: tally.notFound += 1
                case .cancelled: tally.cancelled += 1
                }
                if next < first + count { add() }
            }
            return tally
        }
    }

    private static func one(_ index: Int, base: String, session: Session) async throws -> Ending {
        switch index % 10 {
        case 3:
            do {
                _ = try await session.request(GetForm(url: "\(base)/status/404")).data()
                throw Failure("request \(index): a 404 was accepted")
            } catch let error as NetworkError where error.statusCode == 404 {
                return .notFound
            }
        case 7:
            // Cancelled 0-3 ms after it started: before, during or after its exchange.
            let request = session.request(GetForm(url: "\(base)/weather?city=c\(index % 50)"))
            let waiting = Task { try await request.data() }
            try await Task.sleep(nanoseconds: UInt64(index % 4) * 1_000_000)
            request.cancel()
            switch await waiting.result {
            case .success: return .succeeded  // it won the race
            case .failure(let error as NetworkError) where error.isCancelled: return .cancelled
            case .failure(let error): throw Failure("request \(index): \(error)")
            }
        default:
            // A few dozen distinct URLs: identical requests in flight share one network request.
            let data = try await session.request(GetForm(url: "\(base)/weather?city=c\(index % 50)")).data()
            guard !data.isEmpty else { throw Failure("request \(index): an empty body") }
            return .succeeded
        }
    }

    private struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
