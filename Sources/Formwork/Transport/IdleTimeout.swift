import Foundation

/// The rules of an attempt's idle timeout (``Formable/idleTimeout``, or the session's), as pure values.
///
/// The idle timeout is the longest an attempt may go without any sign of life: from its start to
/// the response's headers, and between body bytes received or sent after that. corelibs
/// URLSession (Linux) truncates `URLRequest.timeoutInterval` to whole seconds, so 0.5 fails every
/// request at once and 1.5 becomes 1. Formwork therefore hands URLSession whole seconds only
/// (rounded up, at least one) and, when the timeout is not a whole number of seconds, watches the
/// precise value itself, to about ``checkInterval``. The same on every platform.
struct IdleTimeout: Sendable, Equatable {
    /// What the attempt has done so far: any change is a sign of life.
    struct Activity: Sendable, Equatable {
        /// Whether the response's headers arrived.
        var hasResponse = false
        /// Body bytes received.
        var bytesReceived: Int64 = 0
        /// Body bytes sent.
        var bytesSent: Int64 = 0
    }

    /// The precise timeout in seconds.
    let seconds: TimeInterval
    /// The last activity seen, and when it was first seen.
    private var last: Activity
    private var lastChange: Date

    /// The timeout URLSession gets for `seconds`: whole seconds, rounded up, at least one, so it
    /// never fires before the precise timeout.
    static func forURLSession(_ seconds: TimeInterval) -> TimeInterval {
        max(1, seconds.rounded(.up))
    }

    /// The timeout Formwork must watch itself for a `URLRequest` with `seconds`, or `nil` when
    /// `transport` enforces it exactly (see ``Transport/enforcesIdleTimeout(of:)``: the built-in
    /// URLSession transport does for a whole number of seconds).
    static func watched(_ seconds: TimeInterval, enforcedBy transport: any Transport) -> TimeInterval? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        return transport.enforcesIdleTimeout(of: seconds) ? nil : seconds
    }

    /// Starts watching an attempt that starts at `now`.
    init(seconds: TimeInterval, now: Date) {
        self.seconds = seconds
        self.last = Activity()
        self.lastChange = now
    }

    /// How often the activity is checked: a tenth of a second, or the timeout if shorter.
    var checkInterval: TimeInterval { min(seconds, 0.1) }

    /// Takes the attempt's activity at `now`.
    /// - Returns: `true` when nothing happened for ``seconds``: the attempt timed out.
    mutating func check(_ activity: Activity, now: Date) -> Bool {
        if activity != last {
            last = activity
            lastChange = now
            return false
        }
        return now.timeIntervalSince(lastChange) >= seconds
    }
}
