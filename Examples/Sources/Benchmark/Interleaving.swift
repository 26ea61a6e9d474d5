import Foundation

extension SmallRequests {
    /// Runs small requests through several sides in interleaved rounds and returns each side's
    /// rounds: every side warms up first (connections open, code paged in); then, within each
    /// round, the sides take turns every ``blockSize(concurrency:)`` requests, the order rotating
    /// from turn to turn and round to round, so a burst of load from elsewhere on the machine, which
    /// lasts seconds, hits all of them alike.
    /// - Parameters:
    ///   - sides: Each side's key and one request of it.
    ///   - rounds: How many rounds.
    ///   - requests: Requests per side and round.
    ///   - concurrency: How many requests are in flight.
    ///   - warmUp: Requests each side sends before the rounds; `nil` for a fifth of `requests`
    ///     (at least 50).
    /// - Returns: One sample per side and round.
    static func interleavedRounds<Side: Hashable & Sendable>(
        _ sides: [(Side, @Sendable () async throws -> Void)], rounds: Int, requests: Int, concurrency: Int,
        warmUp: Int? = nil
    ) async throws -> [Side: [Sample]] {
        for (_, operation) in sides {
            _ = try await measure(
                count: warmUp ?? max(50, requests / 5), concurrency: concurrency, operation)
        }
        var samples: [Side: [Sample]] = [:]
        let block = blockSize(concurrency: concurrency)
        for round in 0..<rounds {
            var totals: [Side: (seconds: Double, cpu: Double, switches: Double)] = [:]
            var done = 0
            while done < requests {
                let count = min(block, requests - done)
                let first = sides.isEmpty ? 0 : (round + done / block) % sides.count
                for (side, operation) in sides[first...] + sides[..<first] {
                    let sample = try await measure(count: count, concurrency: concurrency, operation)
                    totals[side, default: (0, 0, 0)].seconds += Double(count) / sample.requestsPerSecond
                    totals[side, default: (0, 0, 0)].cpu += sample.cpuMicrosecondsPerRequest * Double(count)
                    totals[side, default: (0, 0, 0)].switches +=
                        sample.contextSwitchesPerRequest * Double(count)
                }
                done += count
            }
            let total = Double(requests)
            for (side, sums) in totals {
                samples[side, default: []].append(
                    Sample(
                        requestsPerSecond: total / sums.seconds, cpuMicrosecondsPerRequest: sums.cpu / total,
                        contextSwitchesPerRequest: sums.switches / total))
            }
        }
        return samples
    }
}
