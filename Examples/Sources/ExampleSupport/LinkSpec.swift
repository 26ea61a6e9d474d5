import Foundation

/// A simulated network link: a round-trip time and a rate, written `rtt=40ms,rate=400mbit`.
///
/// `rtt` takes `us`, `ms` or `s`; `rate` takes `bit`, `kbit`, `mbit` or `gbit` (per second, powers
/// of 1000 as network rates are). Both are required. A download of `S` bytes over the link takes
/// about `S / rate + rtt` when it is one request (`predictedSeconds(bytes:requests:)`).
public struct LinkSpec: Sendable, Equatable, CustomStringConvertible {
    /// The round-trip time, in seconds.
    public let roundTripSeconds: Double
    /// The rate, in bytes per second.
    public let bytesPerSecond: Double

    /// Why a link description could not be read.
    public struct Invalid: Error, CustomStringConvertible {
        /// What is wrong with it.
        public let description: String
    }

    /// Creates a link from its figures.
    /// - Parameters:
    ///   - roundTripSeconds: The round-trip time in seconds (0 or more).
    ///   - bytesPerSecond: The rate in bytes per second (more than 0).
    public init(roundTripSeconds: Double, bytesPerSecond: Double) {
        self.roundTripSeconds = roundTripSeconds
        self.bytesPerSecond = bytesPerSecond
    }

    /// Reads `rtt=40ms,rate=400mbit`.
    /// - Parameter text: The description.
    /// - Throws: `Invalid` for an unknown key or unit, a missing key or a number out of range.
    public init(parsing text: String) throws {
        var roundTrip: Double?
        var rate: Double?
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard pair.count == 2 else { throw Invalid(description: "\"\(part)\" is not key=value") }
            switch pair[0] {
            case "rtt":
                roundTrip = try Self.quantity(pair[1], units: ["us": 1e-6, "ms": 1e-3, "s": 1])
            case "rate":
                rate =
                    try Self.quantity(pair[1], units: ["bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9]) / 8
            default:
                throw Invalid(description: "unknown link key \"\(pair[0])\" (use rtt and rate)")
            }
        }
        guard let roundTrip, let rate else {
            throw Invalid(description: "a link needs both rtt and rate, e.g. rtt=40ms,rate=400mbit")
        }
        guard roundTrip >= 0, roundTrip <= 10, rate > 0 else {
            throw Invalid(description: "rtt must be 0-10 s and rate more than 0")
        }
        self.init(roundTripSeconds: roundTrip, bytesPerSecond: rate)
    }

    /// `rtt=40ms,rate=400mbit`: the form `init(parsing:)` reads.
    public var description: String {
        String(format: "rtt=%gms,rate=%gmbit", roundTripSeconds * 1000, bytesPerSecond * 8 / 1e6)
    }

    /// The time a download of `bytes` split into `requests` sequential requests takes on this link:
    /// each request costs a round trip, the bytes cost `bytes / rate`.
    /// - Parameters:
    ///   - bytes: The body bytes.
    ///   - requests: How many requests, one after another, carry them.
    /// - Returns: Seconds.
    public func predictedSeconds(bytes: Int64, requests: Int = 1) -> Double {
        Double(bytes) / bytesPerSecond + Double(requests) * roundTripSeconds
    }

    private static func quantity(_ text: String, units: [String: Double]) throws -> Double {
        let lowered = text.lowercased()
        let digits = lowered.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(digits), let scale = units[String(lowered.dropFirst(digits.count))] else {
            let names = units.keys.sorted().joined(separator: ", ")
            throw Invalid(description: "\"\(text)\" is not a number with a unit (\(names))")
        }
        return value * scale
    }
}
