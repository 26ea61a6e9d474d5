import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Small GET + JSON decode (`/weather`), raw `URLSession.data(for:)` + `JSONDecoder` against a
/// Formwork typed form sent with `send(_:)`, one at a time or many in flight.
///
/// Both sides warm up first (connections open, code paged in), then run interleaved rounds
/// (the side that goes first alternates) and the median round of each side is reported, so a
/// burst of load from elsewhere on the machine hits both sides alike.
struct SmallRequests: Requestable {
    /// The forecast for one day.
    struct Day: Decodable, Sendable {
        let day: String
        let high: Int
        let low: Int
    }

    /// What `/weather` answers inside its `data` envelope.
    struct Weather: Decodable, Sendable {
        let code: String
        let message: String
        let city: String
        let temperature: Double
        let condition: String
        let forecast: [Day]
    }

    /// The whole `/weather` body, as a raw client decodes it.
    struct Envelope: Decodable, Sendable {
        let data: Weather
    }

    /// The Formwork form: the query comes from `parameters`, the value from `data`.
    struct WeatherForm: TypedFormable {
        typealias Response = Weather
        let url: String
        var parameters: Parameters { ["city": "shanghai"] }
        var keyPath: String? { "data" }
    }

    /// One round's result for one side.
    struct Sample: Sendable {
        let requestsPerSecond: Double
        let cpuMicrosecondsPerRequest: Double
        /// Voluntary and involuntary context switches of the whole process, per request.
        let contextSwitchesPerRequest: Double
    }

    let base: String
    let options: Options

    func run(report: Report) async {
        // The raw side gets what a Formwork session runs on: the default configuration without a
        // URLCache. With one, corelibs looks every request up in the cache and stores every
        // response, which made raw 2.3 times slower one at a time: the comparison measured the
        // cache, not what Formwork adds.
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let raw = URLSession(configuration: configuration)
        defer { raw.finishTasksAndInvalidate() }
        // Like for like: raw URLSession sends every request, so Formwork must not share identical
        // ones in flight here (the coalescing phase measures that).
        let session = Session { $0.coalescesRequests = false }
        for concurrency in [1, options.concurrency] {
            let title =
                concurrency == 1
                ? "1. Small GET + JSON decode, sequential"
                : "2. Small GET + JSON decode, \(concurrency) in flight"
            report.section(
                "\(title)\(options.network) (\(options.rounds) rounds of \(options.requests) requests per side, the sides "
                    + "alternating every \(Self.blockSize(concurrency: concurrency)) requests; median round)")
            do {
                try await compare(concurrency: concurrency, raw: raw, session: session, report: report)
            } catch {
                report.fail("small requests, \(concurrency) in flight: \(error)")
            }
        }
        if options.activeLink == nil, options.side == nil { await coalescingCost(report: report) }
    }

    /// What coalescing (on by default) costs one request at a time, which never has a twin in
    /// flight to share with: Formwork with the session defaults against the same session with
    /// coalescing off, interleaved rounds, median.
    private func coalescingCost(report: Report) async {
        report.section(
            "1b. The same, sequential, Formwork only: session defaults (coalescing on) against coalescing off"
        )
        let form = WeatherForm(url: "\(base)/weather")
        let sessions = [true: Session(), false: Session { $0.coalescesRequests = false }]
        let operation = { (on: Bool) -> @Sendable () async throws -> Void in
            let session = sessions[on] ?? Session()
            return { _ = try await self.send(form, session: session) }
        }
        do {
            var samples: [Bool: [Sample]] = [:]
            for on in [true, false] {
                _ = try await Self.measure(
                    count: max(50, options.requests / 5), concurrency: 1, operation(on))
            }
            for round in 0..<options.rounds {
                for on in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let sample = try await Self.measure(
                        count: options.requests, concurrency: 1, operation(on))
                    samples[on, default: []].append(sample)
                }
            }
            let rate = { (on: Bool) in samples[on, default: []].map(\.requestsPerSecond).median }
            let cpu = { (on: Bool) in samples[on, default: []].map(\.cpuMicrosecondsPerRequest).median }
            report.note(
                "req/s: off \(number(rate(false))), defaults \(number(rate(true)));"
                    + " CPU us/request: off \(number(cpu(false))), defaults \(number(cpu(true)))")
            report.ratio(
                "req/s, defaults (coalescing on) / off", rate(true) / max(rate(false), 1e-9), target: 0.98)
        } catch {
            report.fail("small requests with the session defaults: \(error)")
        }
    }

    private func compare(concurrency: Int, raw: URLSession, session: Session, report: Report) async throws {
        guard let url = URL(string: "\(base)/weather?city=shanghai") else {
            throw BenchmarkFailure("bad URL \(base)")
        }
        let urlRequest = URLRequest(url: url)
        let form = WeatherForm(url: "\(base)/weather")
        let rawRequest: @Sendable () async throws -> Void = {
            let (data, response) = try await raw.data(for: urlRequest)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw BenchmarkFailure(
                    "raw: status \((response as? HTTPURLResponse)?.statusCode ?? 0)")
            }
            let weather = try JSONDecoder().decode(Envelope.self, from: data).data
            guard weather.city == "shanghai" else { throw BenchmarkFailure("raw: \(weather.city)") }
        }
        let formworkRequest: @Sendable () async throws -> Void = {
            let weather = try await self.send(form, session: session)
            guard weather.city == "shanghai" else {
                throw BenchmarkFailure("Formwork: \(weather.city)")
            }
        }
        let sides = [(Options.Side.raw, rawRequest), (.formwork, formworkRequest)].filter { side, _ in
            options.side.map { $0 == side } ?? true
        }
        let samples = try await Self.interleavedRounds(
            sides, rounds: options.rounds, requests: options.requests, concurrency: concurrency)
        let rate = { (side: Options.Side) in samples[side, default: []].map(\.requestsPerSecond).median }
        let cpu = { (side: Options.Side) in samples[side, default: []].map(\.cpuMicrosecondsPerRequest).median
        }
        guard sides.count == 2 else {
            for (side, _) in sides {
                report.note("\(side) only: \(number(rate(side))) req/s, \(number(cpu(side))) CPU us/request")
            }
            return
        }
        // The targets: 0.98 on loopback, 0.97 over a link.
        let target = options.activeLink == nil ? 0.98 : 0.97
        report.pair("req/s", raw: rate(.raw), formwork: rate(.formwork), higherIsBetter: true, target: target)
        report.pair(
            "CPU us/request", raw: cpu(.raw), formwork: cpu(.formwork), higherIsBetter: false, target: target)
        let spread = { (side: Options.Side) -> String in
            let rates = samples[side, default: []].map(\.requestsPerSecond)
            return "\(number(rates.min() ?? 0))-\(number(rates.max() ?? 0))"
        }
        report.note("req/s range over rounds: raw \(spread(.raw)), Formwork \(spread(.formwork))")
        let switches = { (side: Options.Side) in
            number(samples[side, default: []].map(\.contextSwitchesPerRequest).median)
        }
        report.note("context switches/request: raw \(switches(.raw)), Formwork \(switches(.formwork))")
    }

    /// How many requests one side runs before the other takes its turn: enough for 64 in flight
    /// to reach full speed, few enough that the sides share the machine's moods.
    static func blockSize(concurrency: Int) -> Int {
        concurrency <= 1 ? 50 : max(200, 4 * concurrency)
    }

    /// Runs `count` requests with at most `concurrency` in flight; any failure ends the phase.
    static func measure(
        count: Int, concurrency: Int, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Sample {
        let usage = ProcessCPU.usage()
        let clock = Stopwatch()
        if concurrency <= 1 {
            for _ in 0..<count { try await operation() }
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var started = 0
                while started < min(concurrency, count) {
                    group.addTask { try await operation() }
                    started += 1
                }
                while try await group.next() != nil {
                    if started < count {
                        group.addTask { try await operation() }
                        started += 1
                    }
                }
            }
        }
        let elapsed = clock.seconds
        let used = ProcessCPU.usage()
        return Sample(
            requestsPerSecond: Double(count) / max(elapsed, 1e-9),
            cpuMicrosecondsPerRequest: Double(used.microseconds - usage.microseconds) / Double(count),
            contextSwitchesPerRequest: Double(used.contextSwitches - usage.contextSwitches) / Double(count))
    }
}
