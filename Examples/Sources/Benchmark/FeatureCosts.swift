import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What each feature adds to a small request: sequential small GETs + decode of `/weather` (as
/// ``SmallRequests`` sends them) through the bare transport, through a session with nothing
/// switched on, and through that session with one feature on at a time (``Options/Feature``).
///
/// All variants warm up first (a fixed ``warmUp`` each, so that under callgrind the difference
/// between two request counts is exactly the requests measured), then run interleaved rounds;
/// the median round of each is reported beside `plain` and `bare`. With `--side VARIANT` only that
/// variant runs, to count its instructions:
///
///     valgrind --tool=callgrind ./Benchmark.nodebug --only features --side plain --requests 200 \
///         --rounds 1 --server http://127.0.0.1:8080
///
/// The progress and load hooks run on the main actor, so their requests are made and awaited
/// there; `main-actor` is `plain` sent the same way, the baseline of those two. The main thread
/// serves the main actor during this phase (see ``Benchmark``).
struct FeatureCosts: Requestable {
    typealias Variant = Options.Feature

    /// A monitor that is told everything and does nothing.
    struct SilentMonitor: EventMonitor {}

    /// A progress observer that looks at nothing.
    struct IgnoredProgress: Progressable {
        /// Ignores the value.
        func progress(_ progress: TransferProgress) {}
    }

    /// Requests each variant sends before it is measured.
    static let warmUp = 100

    let base: String
    let options: Options

    func run(report: Report) async {
        let variants = options.feature.map { [$0] } ?? Variant.allCases
        report.section(
            "What each feature costs: small GET + JSON decode, sequential\(options.network) ("
                + "\(options.rounds) rounds of \(options.requests) requests per variant, the variants "
                + "alternating every \(SmallRequests.blockSize(concurrency: 1)) requests; median round)")
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let raw = URLSession(configuration: configuration)
        defer { raw.finishTasksAndInvalidate() }
        let noCookies = URLSessionConfiguration.default
        noCookies.urlCache = nil
        noCookies.httpCookieAcceptPolicy = .never
        let rawNoCookies = URLSession(configuration: noCookies)
        defer { rawNoCookies.finishTasksAndInvalidate() }
        let container = await MainActor.run { Headless.View() }
        do {
            var operations: [(Variant, @Sendable () async throws -> Void)] = []
            for variant in variants {
                let urlSession = variant == .bareNoCookies ? rawNoCookies : raw
                operations.append((variant, try operation(variant, raw: urlSession, container: container)))
            }
            let samples = try await SmallRequests.interleavedRounds(
                operations, rounds: options.rounds, requests: options.requests, concurrency: 1,
                warmUp: Self.warmUp)
            table(samples, variants: variants, report: report)
            if variants.contains(.loadHook) {
                report.check(await masksCleared(container), "the load hook removed every mask it showed")
            }
        } catch {
            report.fail("feature costs: \(error)")
        }
    }

    /// One request of `variant`: send, decode, check.
    private func operation(
        _ variant: Variant, raw: URLSession, container: Headless.View
    ) throws -> @Sendable () async throws -> Void {
        guard let url = URL(string: "\(base)/weather?city=shanghai") else {
            throw BenchmarkFailure("bad URL \(base)")
        }
        let form = SmallRequests.WeatherForm(url: "\(base)/weather")
        let check = { @Sendable (weather: SmallRequests.Weather) throws in
            guard weather.city == "shanghai" else { throw BenchmarkFailure("\(variant): \(weather.city)") }
        }
        if variant == .bare || variant == .bareNoCookies {
            let urlRequest = URLRequest(url: url)
            return {
                let (data, response) = try await raw.data(for: urlRequest)
                guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                    throw BenchmarkFailure(
                        "\(variant): status \((response as? HTTPURLResponse)?.statusCode ?? 0)")
                }
                try check(try JSONDecoder().decode(SmallRequests.Envelope.self, from: data).data)
            }
        }
        let session = Self.session(for: variant)
        switch variant {
        case .bare, .bareNoCookies, .plain, .plainNoCookies, .cache, .coalescing, .monitor, .retrier:
            return { try check(try await self.send(form, session: session)) }
        case .mainActor:
            return { @MainActor in
                try check(
                    try await self.request(form, session: session)
                        .decode(SmallRequests.Weather.self, atKeyPath: "data"))
            }
        case .progress:
            return { @MainActor in
                try check(
                    try await self.request(form, session: session).progress(IgnoredProgress())
                        .decode(SmallRequests.Weather.self, atKeyPath: "data"))
            }
        case .loadHook:
            return { @MainActor in
                let request = self.request(form, session: session).load(
                    LoadType.default(container: container))
                guard !container.masks.isEmpty else { throw BenchmarkFailure("load hook: no mask shown") }
                try check(try await request.decode(SmallRequests.Weather.self, atKeyPath: "data"))
            }
        }
    }

    /// The session `variant` sends through: nothing switched on but its own feature (`bare` sends
    /// through none).
    static func session(for variant: Variant) -> Session {
        Session { configuration in
            configuration.coalescesRequests = variant == .coalescing
            switch variant {
            case .cache: configuration.cache = HTTPCache(memoryCapacity: 16 << 20)
            case .monitor: configuration.interceptors.eventMonitors = [SilentMonitor()]
            case .retrier: configuration.interceptors.retriers = [RetryPolicy()]
            case .plainNoCookies:
                let noCookies = URLSessionConfiguration.default
                noCookies.urlCache = nil
                noCookies.httpCookieAcceptPolicy = .never
                configuration.transport = URLSessionTransport(configuration: noCookies)
                configuration.userAgent = nil
            case .bare, .bareNoCookies, .plain, .coalescing, .mainActor, .progress, .loadHook: break
            }
        }
    }

    /// Whether the container's masks are all gone (each load ends once its request has ended,
    /// possibly just after the caller got the value): waits up to a second.
    private func masksCleared(_ container: Headless.View) async -> Bool {
        for _ in 0..<100 {
            if await MainActor.run(body: { container.masks.isEmpty }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Prints each variant's median req/s and CPU µs per request, with its ratios to `plain` and
    /// `bare` (costs as multiples: above 1 means the variant costs more).
    private func table(_ samples: [Variant: [SmallRequests.Sample]], variants: [Variant], report: Report) {
        let rate = { (variant: Variant) in samples[variant, default: []].map(\.requestsPerSecond).median }
        let cpu = { (variant: Variant) in
            samples[variant, default: []].map(\.cpuMicrosecondsPerRequest).median
        }
        let ratio = { (value: Double, base: Double) in base > 0 ? String(format: "%.3f", value / base) : "-" }
        let has = { (variant: Variant) in variants.contains(variant) }
        report.note(
            pad("variant", 12) + pad("req/s", 10, left: true) + pad("CPU us/req", 12, left: true)
                + pad("CPU x plain", 13, left: true) + pad("CPU x bare", 12, left: true)
                + pad("time x plain", 14, left: true))
        for variant in variants {
            let timePerRequest = 1 / max(rate(variant), 1e-9)
            let plainTime = has(.plain) ? 1 / max(rate(.plain), 1e-9) : 0
            report.note(
                pad(variant.rawValue, 12) + pad(number(rate(variant)), 10, left: true)
                    + pad(number(cpu(variant)), 12, left: true)
                    + pad(has(.plain) ? ratio(cpu(variant), cpu(.plain)) : "-", 13, left: true)
                    + pad(has(.bare) ? ratio(cpu(variant), cpu(.bare)) : "-", 12, left: true)
                    + pad(has(.plain) ? ratio(timePerRequest, plainTime) : "-", 14, left: true))
        }
        if has(.plain), has(.bare) {
            let cpuRatio = cpu(.plain) / max(cpu(.bare), 1e-9)
            let timeRatio = rate(.bare) / max(rate(.plain), 1e-9)
            report.note(String(format: "plain / bare: CPU %.3f, time per request %.3f", cpuRatio, timeRatio))
            report.note("(the 1.05 target is for instructions: see Examples/README.md, callgrind)")
        }
    }
}
