import ExampleSupport
import Formwork
import FormworkAsyncHTTPClient
import Foundation

/// `MemoryCheck stream-flood [--events N] [--size B] [--pause-after K] [--pause S] [--per-event-ms M]
/// [--transport urlsession|ahc] [--limit-mib MIB]`: reads a stream of N server-sent events of B
/// bytes each (default 100,000 of 1 KiB: 100 MB) that the server sends as fast as it can, with a
/// reader that stops for S seconds after K events (default 2 s after 1,000) and sleeps M ms per
/// event (default 0). Every event must arrive, in order, and the peak RSS must grow less than the
/// limit (default 32 MiB) over the process before the stream: the stream slows the network down
/// instead of buffering (it once ended with `streamBufferOverflow`, the RSS up by 50-124 MiB).
enum StreamFloodMemory {
    private struct EventsForm: RequestFormable {
        let url: String
    }

    static func run(_ arguments: [String]) async {
        func number(_ name: String, _ fallback: Int) -> Int {
            MemoryCheck.value(after: name, in: arguments).flatMap(Int.init) ?? fallback
        }
        let (events, size) = (number("--events", 100_000), number("--size", 1024))
        let (pauseAfter, perEvent) = (number("--pause-after", 1_000), number("--per-event-ms", 0))
        let pause = MemoryCheck.value(after: "--pause", in: arguments).flatMap(Double.init) ?? 2
        let transport = MemoryCheck.value(after: "--transport", in: arguments) ?? "urlsession"
        let limit = Int64(number("--limit-mib", 32)) << 20
        guard events >= 1, size >= 64, ["urlsession", "ahc"].contains(transport) else {
            print(
                "usage: MemoryCheck stream-flood [--events N] [--size B ≥ 64] [--pause-after K] [--pause S] "
                    + "[--per-event-ms M] [--transport urlsession|ahc] [--limit-mib MIB]")
            exit(2)
        }
        do {
            let server = try DemoServerProcess()
            let session = Session { configuration in
                if transport == "ahc" { configuration.transport = AsyncHTTPClientTransport() }
            }
            let url = "\(server.baseURL)/sse?key=flood&count=\(events)&total=\(events)&size=\(size)"
            let baseline = peakResidentBytes()
            let started = Date()
            var received = 0
            for try await event in session.stream(EventsForm(url: url)).events() {
                received += 1
                guard event.id == String(format: "%08d", received) else {
                    print("MemoryCheck FAIL: event \(received) had id \(event.id)")
                    exit(1)
                }
                if received == pauseAfter { try await Task.sleep(nanoseconds: UInt64(pause * 1e9)) }
                if perEvent > 0 { try await Task.sleep(nanoseconds: UInt64(perEvent) * 1_000_000) }
            }
            withExtendedLifetime(server) {}
            let elapsed = Date().timeIntervalSince(started)
            let growth = peakResidentBytes() - baseline
            print(
                "MemoryCheck stream-flood (\(transport)): \(received) of \(events) events of \(size) B in "
                    + "\(String(format: "%.1f", elapsed)) s (a \(pause) s pause after \(pauseAfter), "
                    + "\(perEvent) ms per event); peak RSS \(formatBytes(peakResidentBytes())), growth "
                    + "\(formatBytes(growth)); limit \(formatBytes(limit)) growth")
            guard received == events else {
                print("MemoryCheck FAIL: \(received) of \(events) events arrived")
                exit(1)
            }
            guard growth < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(growth)), over the limit")
                exit(1)
            }
            print("MemoryCheck stream-flood OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }
}
