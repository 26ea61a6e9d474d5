import ExampleSupport
import Foundation

/// Prints the benchmark's results as they come and remembers correctness failures.
///
/// Every ratio is Formwork against raw URLSession, turned so that a ratio above 1 means Formwork
/// did better: rates are Formwork/raw, costs (time, CPU, bytes, memory) raw/Formwork. Ratios are
/// compared with their targets (PASS or BELOW TARGET) but never fail the run: on a shared
/// machine they are noisy. Only correctness failures (wrong sizes or content, errors, a resume
/// that sent bytes twice, memory over the limit) make the exit code non-zero.
final class Report: Sendable {
    private let failures = Locked<[String]>([])

    /// The correctness failures so far.
    var failed: [String] { failures.withLock { $0 } }

    /// Prints the explanation that heads the output.
    func header(server: String, options: Options) {
        print("Formwork benchmark: raw URLSession and Formwork, same work, one process")
        print(
            "demo server \(server); transfers \(formatBytes(options.size)); \(options.requests) small requests"
        )
        print("per side and round\(options.quick ? " (--quick)" : "")")
        if let link = options.link {
            print(
                "over the link \(link): downloads \(formatBytes(options.linkSize)), "
                    + "\(options.linkRequests) small requests per side and round"
                    + (options.linkOnly ? " (--link-only: no loopback phases)" : ""))
        }
        print("Ratios are Formwork against raw, turned so that > 1 means Formwork is better")
        print("(rates Formwork/raw; time, CPU, bytes raw/Formwork). Speed ratios are noisy on a shared")
        print("machine: BELOW TARGET is reported but never fails the run. Only correctness failures")
        print("(sizes, content, errors, resume bytes, peak RSS growth >= 64 MiB) set the exit code.")
    }

    /// Starts a numbered section.
    func section(_ title: String) {
        print("\n\(title)")
    }

    /// An indented line of information.
    func note(_ text: String) {
        print("   \(text)")
    }

    /// One metric measured on both sides, with its ratio and target.
    /// - Parameters:
    ///   - metric: What was measured, e.g. `req/s`.
    ///   - raw: The raw URLSession value.
    ///   - formwork: The Formwork value.
    ///   - higherIsBetter: `true` for rates; `false` for costs (the ratio is then raw/Formwork).
    ///   - target: The ratio to reach.
    func pair(_ metric: String, raw: Double, formwork: Double, higherIsBetter: Bool, target: Double) {
        let ratio = higherIsBetter ? formwork / max(raw, 1e-9) : raw / max(formwork, 1e-9)
        let values =
            pad(metric, 16) + "raw " + pad(number(raw), 10, left: true) + "   Formwork "
            + pad(number(formwork), 10, left: true)
        print("   " + values + "   " + verdict(ratio: ratio, target: target))
    }

    /// A ratio worked out by the caller (e.g. Formwork against one of several raw variants).
    func ratio(_ label: String, _ ratio: Double, target: Double) {
        print("   " + pad(label, 56) + verdict(ratio: ratio, target: target))
    }

    /// A correctness limit: a failure when `value` reaches `limit`.
    func limit(_ label: String, value: Int64, below limit: Int64) {
        let ok = value < limit
        print(
            "   " + pad(label, 34) + pad(formatBytes(value), 12) + "limit < \(formatBytes(limit))   "
                + (ok ? "PASS" : "FAIL"))
        if !ok { fail("\(label): \(formatBytes(value)), limit \(formatBytes(limit))") }
    }

    /// Records a correctness failure unless `condition` holds.
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
        if !condition { fail(what()) }
    }

    /// Records (and prints) a correctness failure.
    func fail(_ what: String) {
        print("   FAIL: \(what)")
        failures.withLock { $0.append(what) }
    }

    /// Prints the closing summary.
    func summary() {
        let failed = self.failed
        print("")
        if failed.isEmpty {
            print("Correctness: all checks passed (speed ratios are informative, not pass/fail).")
        } else {
            print("Correctness: \(failed.count) failure(s):")
            for failure in failed { print("  - \(failure)") }
        }
    }

    private func verdict(ratio: Double, target: Double) -> String {
        "ratio " + pad(String(format: "%.2f", ratio), 5, left: true) + "   target >= "
            + String(format: "%.2f", target) + "   " + (ratio >= target ? "PASS" : "BELOW TARGET")
    }
}

/// `text` padded with spaces to `width` (on the left when `left`).
func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let spaces = String(repeating: " ", count: max(0, width - text.count))
    return left ? spaces + text : text + spaces
}

/// A number with one decimal (no decimals from 10,000 up).
func number(_ value: Double) -> String {
    String(format: value >= 10_000 ? "%.0f" : "%.1f", value)
}

/// Seconds with two decimals.
func seconds(_ value: Double) -> String {
    String(format: "%.2f s", value)
}

/// MiB per second for `bytes` moved in `seconds`.
func mebibytesPerSecond(_ bytes: Int64, _ seconds: Double) -> Double {
    Double(bytes) / max(seconds, 1e-9) / 1_048_576
}
