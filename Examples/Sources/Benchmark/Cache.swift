import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cached hits: the same small JSON response (`Cache-Control: max-age=3600`),
/// requested again and again, one at a time, and decoded. Formwork's `HTTPCache` (memory) against
/// raw `URLSession` with a `URLCache` and `.returnCacheDataElseLoad`. Reports hits per second,
/// CPU per hit and the requests that reached the server; the goal is at least as many hits per
/// second as the URLCache.
///
/// corelibs' `URLCache` (Linux) stores nothing (see the Platform notes article): there every raw request reaches the
/// server, so on Linux the pair compares Formwork's cache with a network round trip, and the
/// server counts say so. On Apple platforms the raw side is served by the URLCache.
struct CacheHits: Requestable {
    /// What `/cache/resource` answers.
    struct Resource: Decodable, Sendable {
        let id: String
        let version: Int
    }

    /// What `/cache/stats` answers.
    struct Stats: Decodable, Sendable {
        let hits: Int
    }

    struct Form: RequestFormable {
        let url: String
        var cachePolicy: CachePolicy = .useProtocol
    }

    let base: String
    let options: Options

    func run(report: Report) async {
        report.section(
            "7. Cached hits: the same small JSON GET (max-age=3600) + decode, sequential (\(options.rounds) "
                + "rounds of \(options.requests) per side, the side going first alternating; median round)")
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 16 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let raw = URLSession(configuration: configuration)
        defer { raw.finishTasksAndInvalidate() }
        let session = Session { $0.cache = HTTPCache(memoryCapacity: 16 << 20) }
        let rawID = "bench-raw-\(UUID().uuidString)"
        let formworkID = "bench-formwork-\(UUID().uuidString)"
        let query = "cc=max-age=3600&etag=1"
        do {
            guard let url = URL(string: "\(base)/cache/resource?id=\(rawID)&\(query)") else {
                throw BenchmarkFailure("bad URL \(base)")
            }
            let urlRequest = URLRequest(url: url)
            let rawHit: @Sendable () async throws -> Void = {
                let (data, response) = try await raw.data(for: urlRequest)
                guard (response as? HTTPURLResponse)?.statusCode == 200,
                    try JSONDecoder().decode(Resource.self, from: data).id == rawID
                else { throw BenchmarkFailure("raw: a wrong cached response") }
            }
            let form = Form(url: "\(base)/cache/resource?id=\(formworkID)&\(query)")
            let formworkHit: @Sendable () async throws -> Void = {
                let resource = try await request(form, session: session).decode(Resource.self)
                guard resource.id == formworkID else {
                    throw BenchmarkFailure("Formwork: a wrong cached response")
                }
            }
            let warmUp = max(50, options.requests / 5)
            _ = try await SmallRequests.measure(count: warmUp, concurrency: 1, rawHit)
            _ = try await SmallRequests.measure(count: warmUp, concurrency: 1, formworkHit)
            var rawSamples: [SmallRequests.Sample] = []
            var formworkSamples: [SmallRequests.Sample] = []
            for round in 0..<options.rounds {
                let rawFirst = round.isMultiple(of: 2)
                if rawFirst {
                    rawSamples.append(
                        try await SmallRequests.measure(count: options.requests, concurrency: 1, rawHit))
                }
                formworkSamples.append(
                    try await SmallRequests.measure(count: options.requests, concurrency: 1, formworkHit))
                if !rawFirst {
                    rawSamples.append(
                        try await SmallRequests.measure(count: options.requests, concurrency: 1, rawHit))
                }
            }
            report.pair(
                "hits/s", raw: rawSamples.map(\.requestsPerSecond).median,
                formwork: formworkSamples.map(\.requestsPerSecond).median, higherIsBetter: true, target: 1.0)
            report.pair(
                "CPU us/hit", raw: rawSamples.map(\.cpuMicrosecondsPerRequest).median,
                formwork: formworkSamples.map(\.cpuMicrosecondsPerRequest).median, higherIsBetter: false,
                target: 1.0)
            let sent = warmUp + options.rounds * options.requests
            let rawServer = try await serverHits(rawID)
            let formworkServer = try await serverHits(formworkID)
            report.note(
                "requests that reached the server, of \(sent) per side: raw \(rawServer), Formwork \(formworkServer)"
            )
            if rawServer > 1 {
                report.note("(this platform's URLCache stored nothing: every raw request went to the server)")
            }
            report.check(formworkServer == 1, "Formwork's cache answered every request after the first")
        } catch {
            report.fail("cached hits: \(error)")
        }
    }

    /// How many requests for `id` reached the server.
    private func serverHits(_ id: String) async throws -> Int {
        let stats = Form(url: "\(base)/cache/stats?id=\(id)", cachePolicy: .reloadIgnoringCache)
        return try await request(stats, session: Session()).decode(Stats.self).hits
    }
}
