import Foundation

/// How far a transfer has come, in bytes.
///
/// Formwork keeps its own byte counters rather than `Foundation.Progress` (which traps on Linux
/// when a count is reset, as a retry must). Within one attempt, `completedBytes` never goes
/// backwards and the last update of a successful transfer has `completedBytes == totalBytes`.
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// Bytes transferred so far in this attempt.
    public var completedBytes: Int64
    /// The expected total, or `nil` when the server did not say (no Content-Length, chunked).
    public var totalBytes: Int64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - completedBytes: Bytes transferred so far.
    ///   - totalBytes: The expected total, if known.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes` in 0...1, or `nil` when the total is unknown (never a
    /// division by zero: an empty transfer of known total 0 is complete, 1.0).
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes >= 0 else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, max(0, Double(completedBytes) / Double(totalBytes)))
    }

    /// `true` when the total is known and reached.
    var isComplete: Bool {
        guard let totalBytes else { return false }
        return completedBytes >= totalBytes
    }

    /// e.g. `"512/1024 bytes (50%)"` or `"512 bytes"` when the total is unknown.
    public var description: String {
        guard let totalBytes else { return "\(completedBytes) bytes" }
        let percent = fractionCompleted.map { Int(($0 * 100).rounded(.down)) } ?? 0
        return "\(completedBytes)/\(totalBytes) bytes (\(percent)%)"
    }
}
