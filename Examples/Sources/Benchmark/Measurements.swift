import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a lock, shared between the benchmark's tasks and URLSession's delegate queue.
final class Locked<Value: Sendable>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// CPU time and context switches this process has used (all threads, user and system), from
/// `getrusage`.
enum ProcessCPU {
    /// What `getrusage` reports for the whole process so far.
    struct Usage: Sendable {
        /// Microseconds of CPU, user and system.
        let microseconds: Int64
        /// Voluntary and involuntary context switches (`ru_nvcsw + ru_nivcsw`).
        let contextSwitches: Int64
    }

    /// The process's usage so far.
    static func usage() -> Usage {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func micros(_ time: timeval) -> Int64 { Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec) }
        return Usage(
            microseconds: micros(usage.ru_utime) + micros(usage.ru_stime),
            contextSwitches: Int64(usage.ru_nvcsw) + Int64(usage.ru_nivcsw))
    }
}

/// Peak resident memory of one phase. On Linux the kernel's high-water mark is reset before the
/// phase (writing `5` to `/proc/self/clear_refs`) and `VmHWM` is read after it, so the growth is
/// the phase's own. Where that reset is not possible, the growth is measured against the
/// process's earlier peak (`getrusage`), which can only under-report.
enum PeakMemory {
    /// How a phase's memory was measured.
    enum Method: Sendable {
        /// The high-water mark was reset before the phase.
        case resetHighWaterMark
        /// The reset failed: growth over the process's earlier peak.
        case processPeak
    }

    /// The start of a measurement.
    struct Mark: Sendable {
        let method: Method
        let baseline: Int64
    }

    /// Resets the high-water mark (if possible) and records the resident memory now.
    static func mark() -> Mark {
        if resetHighWaterMark(), let resident = statusBytes("VmRSS") {
            return Mark(method: .resetHighWaterMark, baseline: resident)
        }
        return Mark(method: .processPeak, baseline: processPeak())
    }

    /// How far the peak rose above the mark's baseline.
    static func growth(since mark: Mark) -> Int64 {
        switch mark.method {
        case .resetHighWaterMark:
            return max(0, (statusBytes("VmHWM") ?? mark.baseline) - mark.baseline)
        case .processPeak:
            return max(0, processPeak() - mark.baseline)
        }
    }

    /// `true` when the kernel accepted the reset of the high-water mark.
    static func resetHighWaterMark() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// A `kB` line of `/proc/self/status` (`VmRSS`, `VmHWM`), in bytes.
    static func statusBytes(_ key: String) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let digits = line.dropFirst(key.count + 1).filter(\.isNumber)
            return Int64(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// The process's peak resident memory so far, in bytes.
    static func processPeak() -> Int64 {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Int64(usage.ru_maxrss) * 1024
        #else
            getrusage(RUSAGE_SELF, &usage)
            return Int64(usage.ru_maxrss)
        #endif
    }
}

/// Wall-clock seconds since a start.
struct Stopwatch {
    private let start = ContinuousClock.now

    /// Seconds elapsed.
    var seconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

extension Array where Element == Double {
    /// The median (the mean of the middle two for an even count); 0 when empty.
    var median: Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Why a phase's result cannot be trusted (a wrong size, content or reply): it is reported, and
/// it sets the exit code.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
