import Formwork
import Foundation

/// Identical requests in flight with and without coalescing: bursts of 64 identical
/// GETs to an endpoint that answers after a short delay, sent through a session that coalesces
/// (the default) and one that does not. Reports the requests the server saw and the time per
/// burst; the goal is at least 10 times fewer server requests.
struct Coalescing: Requestable {
    /// What `/coalesce/held` answers.
    struct Held: Decodable, Sendable {
        let key: String
        let hit: Int
    }

    /// What `/coalesce/hits` answers.
    struct Hits: Decodable, Sendable {
        let hits: Int
    }

    struct Form: RequestFormable {
        let url: String
        var coalescesRequests = true
    }

    let base: String
    let options: Options
    /// Identical requests per burst.
    let inFlight = 64
    /// How long the server takes to answer one request, in milliseconds.
    let serverDelay = 20

    func run(report: Report) async {
        let bursts = options.quick ? 5 : 20
        report.section(
            "6. \(inFlight) identical GETs in flight, \(bursts) bursts, server answers after \(serverDelay) ms"
                + ": without and with coalescing")
        do {
            let off = try await measure(coalescing: false, bursts: bursts)
            let on = try await measure(coalescing: true, bursts: bursts)
            report.note(
                "server requests: without \(off.hits), with \(on.hits)"
                    + String(format: " (%.1fx fewer)", Double(off.hits) / Double(max(on.hits, 1))))
            report.note(
                String(
                    format: "time per burst: without %.1f ms, with %.1f ms", off.seconds * 1000,
                    on.seconds * 1000))
            report.ratio(
                "server requests saved (goal >= 10)", Double(off.hits) / Double(max(on.hits, 1)), target: 10)
            report.check(off.hits == bursts * inFlight, "without coalescing every request reached the server")
            report.check(on.hits <= bursts, "with coalescing each burst reached the server at most once")
        } catch {
            report.fail("coalescing: \(error)")
        }
    }

    /// Sends the bursts through one session; returns the server's hits and the median burst time.
    private func measure(coalescing: Bool, bursts: Int) async throws -> (hits: Int, seconds: Double) {
        let session = Session { $0.coalescesRequests = coalescing }
        let key = "bench-\(coalescing)-\(UUID().uuidString)"
        let form = Form(url: "\(base)/coalesce/held?key=\(key)&ms=\(serverDelay)&size=2048")
        var times: [Double] = []
        for _ in 0..<bursts {
            let started = Date()
            let bodies = try await withThrowingTaskGroup(of: Held.self) { group in
                for _ in 0..<inFlight {
                    group.addTask { try await request(form, session: session).decode(Held.self) }
                }
                return try await group.reduce(into: [Held]()) { $0.append($1) }
            }
            times.append(Date().timeIntervalSince(started))
            guard bodies.count == inFlight, bodies.allSatisfy({ $0.key == key }) else {
                throw BenchmarkFailure("a burst lost or mixed up responses")
            }
        }
        let counted = Form(url: "\(base)/coalesce/hits?key=\(key)&atLeast=0", coalescesRequests: false)
        let hits = try await request(counted, session: session).decode(Hits.self).hits
        return (hits, times.sorted()[times.count / 2])
    }
}
