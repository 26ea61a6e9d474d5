import ExampleSupport
import Formwork
import Foundation

/// Draws a progress bar: bytes, percent and rate, and a status the scenario sets ("✗ connection
/// lost", "✓ done").
///
/// The rate is the average since the first update this bar saw, counting only bytes moved while
/// it watched: a resumed download that starts at 37 % is not credited with the bytes it already had.
@MainActor
final class ProgressWidget: Widget {
    private let name: String
    private let progressView: Headless.ProgressView
    private var first: (date: Date, bytes: Int64)?
    private var latest: (date: Date, bytes: Int64)?
    private var changed: (@MainActor () -> Void)?

    /// What the scenario says about the transfer, shown after the numbers.
    var status: String? {
        didSet { changed?() }
    }

    /// The bytes the bar had at its first update (where a resumed download started).
    var startBytes: Int64? { first?.bytes }

    /// - Parameters:
    ///   - name: The label.
    ///   - progressView: The bar `.progress(_:)` feeds.
    init(_ name: String, progressView: Headless.ProgressView) {
        self.name = name
        self.progressView = progressView
    }

    func observe(_ changed: @escaping @MainActor () -> Void) {
        self.changed = changed
        progressView.onChange = { [weak self] in
            self?.noteUpdate()
            changed()
        }
    }

    func stopObserving() {
        progressView.onChange = nil
        changed = nil
    }

    private func noteUpdate() {
        guard let progress = progressView.latestProgress else { return }
        latest = (Date(), progress.completedBytes)
        if first == nil { first = latest }
    }

    /// Bytes per second between the first and the latest update, or `nil` before there is
    /// anything to average.
    private var rate: Double? {
        guard let first, let latest else { return nil }
        let seconds = latest.date.timeIntervalSince(first.date)
        guard seconds > 0.05 else { return nil }
        return Double(latest.bytes - first.bytes) / seconds
    }

    private var numbers: String {
        guard let progress = progressView.latestProgress else { return "waiting" }
        let done = formatBytes(progress.completedBytes)
        let total = progress.totalBytes.map { " of \(formatBytes($0))" } ?? ""
        let speed = rate.map { "  \(formatBytes(Int64($0)))/s" } ?? ""
        return "\(done)\(total)\(speed)"
    }

    private var percent: String {
        guard let fraction = progressView.fractionCompleted else { return "  -- %" }
        return String(format: "%5.1f %%", fraction * 100)
    }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad(name, Pen.labelWidth), .bold)
        let width = 20
        let fraction = progressView.fractionCompleted ?? 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar =
            pen.paint(String(repeating: "█", count: filled), .cyan)
            + pen.paint(String(repeating: "░", count: width - filled), .dim)
        let status = status.map { "  \($0)" } ?? ""
        return "  \(label) \(bar) \(percent)  \(numbers)\(status)"
    }

    func plainEvent() -> (key: String, text: String) {
        let tenth = progressView.fractionCompleted.map { Int(($0 * 10).rounded(.down)) } ?? -1
        let status = status.map { " \($0)" } ?? ""
        let text = "\(name): \(percent.trimmingCharacters(in: .whitespaces)), \(numbers)\(status)"
        return ("\(tenth)|\(status)", text)
    }
}
