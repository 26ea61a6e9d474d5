import Foundation
import Testing

/// Waits until `condition` holds, checking it again every millisecond or so, and records an
/// issue naming `what` if it still does not hold after `seconds`. The one bounded wait of the
/// suites that are new or changed since it came: no fixed sleeps, no wall-clock bound on the
/// behaviour itself (a busy machine only makes the wait longer, up to the generous limit).
/// - Parameters:
///   - what: What is awaited, for the issue's message.
///   - seconds: How long to wait at most. Defaults to 20.
///   - condition: The condition, checked on the caller's actor.
/// - Returns: Whether the condition held in time.
@discardableResult
func eventually(
    _ what: @autoclosure () -> String, within seconds: TimeInterval = 20,
    isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async -> Bool
) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)  // `ContinuousClock` needs macOS 13 / iOS 16
    while await !condition() {
        guard Date() < deadline else {
            Issue.record("Not within \(Int(seconds)) s: \(what())", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}

/// What the process holds of the operating system: open file descriptors and threads (read from
/// `/proc/self` on Linux; `nil` where there is no `/proc`).
struct ProcessResources: Equatable, CustomStringConvertible {
    let descriptors: Int
    let threads: Int

    /// Now, or `nil` without `/proc`.
    static func now() -> ProcessResources? {
        let files = FileManager.default
        guard let descriptors = try? files.contentsOfDirectory(atPath: "/proc/self/fd"),
            let threads = try? files.contentsOfDirectory(atPath: "/proc/self/task")
        else { return nil }
        return ProcessResources(descriptors: descriptors.count, threads: threads.count)
    }

    var description: String { "\(descriptors) descriptors, \(threads) threads" }

    /// Whether neither count is more than `slack` above `baseline`'s.
    func isWithin(_ slack: Int, of baseline: ProcessResources) -> Bool {
        descriptors <= baseline.descriptors + slack && threads <= baseline.threads + slack
    }
}
