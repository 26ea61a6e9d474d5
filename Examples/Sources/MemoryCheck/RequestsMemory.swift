import ExampleSupport
import Formwork
import FormworkAsyncHTTPClient
import Foundation

/// `MemoryCheck requests [--count N] [--transport urlsession|ahc] [--limit-mib MIB]`: sends N small
/// requests (default 20,000; 16 in flight) from one session that does not coalesce, half of them
/// GETs decoded at a key path and half POSTs with a body, and checks that the peak RSS grows less
/// than the limit (default 16 MiB) after the first tenth: a finished request must not stay in
/// memory. (A retain cycle between a request and its transport task once kept every request
/// that did not coalesce, 4-6 KiB each: 20,000 requests grew the process by some 100 MiB.)
enum RequestsMemory {
    private struct WeatherForm: RequestFormable {
        let url: String
        var parameters: Parameters { ["city": "shanghai"] }
    }

    private struct Weather: Decodable, Sendable {
        let city: String
    }

    private struct EchoForm: RequestFormable {
        let url: String
        let index: Int
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["index": index, "note": "memory check"] }
        var encoding: ParameterEncoding { .json }
    }

    private struct Echo: Decodable, Sendable {
        let method: String
        let bodyLength: Int
    }

    static func run(_ arguments: [String]) async {
        let count = MemoryCheck.value(after: "--count", in: arguments).flatMap(Int.init) ?? 20_000
        let transport = MemoryCheck.value(after: "--transport", in: arguments) ?? "urlsession"
        let limit = (MemoryCheck.value(after: "--limit-mib", in: arguments).flatMap(Int64.init) ?? 16) << 20
        guard count >= 100, ["urlsession", "ahc"].contains(transport) else {
            print(
                "usage: MemoryCheck requests [--count N (≥ 100)] [--transport urlsession|ahc] [--limit-mib MIB]"
            )
            exit(2)
        }
        do {
            let server = try DemoServerProcess()
            let session = Session { configuration in
                configuration.coalescesRequests = false
                if transport == "ahc" { configuration.transport = AsyncHTTPClientTransport() }
            }
            let started = Date()
            let warmUp = count / 10
            try await send(warmUp, from: 0, to: server.baseURL, on: session)
            let baseline = peakResidentBytes()
            try await send(count - warmUp, from: warmUp, to: server.baseURL, on: session)
            withExtendedLifetime(server) {}
            let elapsed = Date().timeIntervalSince(started)
            let growth = peakResidentBytes() - baseline
            print(
                "MemoryCheck requests (\(transport)): \(count) requests in \(String(format: "%.1f", elapsed)) s; "
                    + "peak RSS \(formatBytes(peakResidentBytes())), growth after the first \(warmUp) "
                    + "\(formatBytes(growth)) (\(growth / Int64(count - warmUp)) B a request); "
                    + "limit \(formatBytes(limit)) growth")
            guard growth < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(growth)), over the limit")
                exit(1)
            }
            print("MemoryCheck requests OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }

    /// Sends `count` requests numbered from `first`, 16 at a time; any failure ends the check.
    private static func send(_ count: Int, from first: Int, to base: String, on session: Session) async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = first
            func add() {
                let index = next
                next += 1
                group.addTask { try await one(index, base: base, session: session) }
            }
            while next < first + min(16, count) { add() }
            while try await group.next() != nil {
                if next < first + count { add() }
            }
        }
    }

    private static func one(_ index: Int, base: String, session: Session) async throws {
        if index.isMultiple(of: 2) {
            let weather = try await session.request(WeatherForm(url: "\(base)/weather"))
                .decode(Weather.self, atKeyPath: "data")
            guard weather.city == "shanghai" else { throw Failure("request \(index): city \(weather.city)") }
        } else {
            let echo = try await session.request(EchoForm(url: "\(base)/echo", index: index)).decode(
                Echo.self)
            guard echo.method == "POST", echo.bodyLength > 0 else {
                throw Failure("request \(index): \(echo)")
            }
        }
    }

    private struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
