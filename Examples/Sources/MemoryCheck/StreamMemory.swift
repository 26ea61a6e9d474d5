import ExampleSupport
import Formwork
import Foundation

/// `MemoryCheck stream [--seconds S] [--rate R] [--limit-mib MIB]`: reads a server-sent event
/// stream of R events per second (default 100) for S seconds (default 20) and checks that the peak
/// RSS grows less than the limit (default 16 MiB) after a warm-up of a few seconds: a long stream
/// holds only the current event and the unread ones.
enum StreamMemory {
    private struct EventsForm: RequestFormable {
        let url: String
    }

    static func run(_ arguments: [String]) async {
        let seconds = MemoryCheck.value(after: "--seconds", in: arguments).flatMap(Double.init) ?? 20
        let rate = MemoryCheck.value(after: "--rate", in: arguments).flatMap(Int.init) ?? 100
        let limit = (MemoryCheck.value(after: "--limit-mib", in: arguments).flatMap(Int64.init) ?? 16) << 20
        let warmUp = min(3, seconds / 4)
        do {
            let server = try DemoServerProcess()
            let url = "\(server.baseURL)/sse?key=memory&end=open&rate=\(rate)"
            let started = Date()
            var baseline: Int64?
            var events = 0
            var lastReport = started
            for try await event in Session.default.stream(EventsForm(url: url)).events() {
                events += 1
                guard event.id == String(format: "%08d", events) else {
                    print("MemoryCheck FAIL: event \(events) had id \(event.id)")
                    exit(1)
                }
                let elapsed = Date().timeIntervalSince(started)
                if baseline == nil, elapsed >= warmUp { baseline = peakResidentBytes() }
                if Date().timeIntervalSince(lastReport) >= 10 {
                    lastReport = Date()
                    print(
                        "  stream \(Int(elapsed)) s: \(events) events, peak RSS \(formatBytes(peakResidentBytes()))"
                    )
                }
                if elapsed >= seconds { break }
            }
            withExtendedLifetime(server) {}
            let elapsed = Date().timeIntervalSince(started)
            let peak = peakResidentBytes()
            let growth = peak - (baseline ?? peak)
            print(
                "MemoryCheck stream: \(events) events in \(String(format: "%.1f", elapsed)) s "
                    + "(\(String(format: "%.0f", Double(events) / max(elapsed, 0.001))) events/s); peak RSS "
                    + "\(formatBytes(peak)), growth after \(Int(warmUp)) s of warm-up \(formatBytes(growth)); "
                    + "limit \(formatBytes(limit)) growth")
            guard Double(events) >= Double(rate) * elapsed * 0.8 else {
                print("MemoryCheck FAIL: only \(events) events arrived")
                exit(1)
            }
            guard growth < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(growth)), over the limit")
                exit(1)
            }
            print("MemoryCheck stream OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }
}
