import Foundation

/// A value behind an `NSLock`: the one way Formwork guards mutable state shared across threads.
///
/// `Synchronization.Mutex` would need macOS 15 / iOS 18, so a small lock wrapper keeps older
/// Apple platforms.
final class Protected<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    ///
    /// `rethrows`, not typed throws: a typed-throws function type needs the iOS 18 / macOS 15
    /// runtime wherever its metadata is needed.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }
}
