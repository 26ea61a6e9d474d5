import Foundation
import Testing

@testable import Formwork

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

/// Runs `work` on another thread and waits until it returns, up to `seconds`, recording an issue
/// naming `what` if it does not: the counterpart of ``eventually(_:within:isolation:sourceLocation:_:)``
/// for code that cannot suspend (a closure the code under test calls), e.g. to show that `work`
/// does not wait for a lock the caller holds. A `work` that never returns is left running.
/// - Parameters:
///   - what: What `work` must do in time, for the issue's message.
///   - seconds: How long to wait at most. Defaults to 20.
///   - work: The work.
/// - Returns: Whether `work` returned in time.
@discardableResult
func returnsOnAnotherThread(
    _ what: @autoclosure () -> String, within seconds: TimeInterval = 20,
    sourceLocation: SourceLocation = #_sourceLocation, _ work: @escaping @Sendable () -> Void
) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        work()
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        Issue.record("Not within \(Int(seconds)) s: \(what())", sourceLocation: sourceLocation)
        return false
    }
    return true
}

/// Weak references to objects, to check that they were released.
final class WeakObjects: Sendable {
    private struct Reference: @unchecked Sendable {  // only read for `nil` under the lock
        weak var object: AnyObject?
    }

    private let references = Protected([Reference]())

    /// Adds `object`.
    func add(_ object: AnyObject) {
        references.withLock { $0.append(Reference(object: object)) }
    }

    /// How many of the objects are still alive.
    var alive: Int { references.withLock { $0.filter { $0.object != nil }.count } }
}

extension RequestCore {
    /// The transport's own task of the current attempt: for a task that shares an identical
    /// request's exchange (coalescing), the shared exchange's task.
    var transportTask: (any TransportTask)? {
        let task = self.task
        return (task as? SharedExchangeTask)?.flight?.task ?? task
    }
}
