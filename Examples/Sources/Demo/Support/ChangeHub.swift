import Foundation

/// Lets a scenario wait for a state of the headless model ("the reload prompt is shown", "all
/// three requests answered"): the condition is checked again each time something reports a
/// change (the board's widgets, or a scenario's recorder), with a time limit.
@MainActor
final class ChangeHub {
    /// A scenario waiting for a condition.
    private struct Waiter {
        let condition: @MainActor () -> Bool
        let continuation: CheckedContinuation<Void, any Error>
        let timer: Task<Void, Never>
    }

    private var waiters: [UUID: Waiter] = [:]

    /// Called first on every change, e.g. to record the history of a container's masks.
    var observer: (@MainActor () -> Void)?

    /// Re-checks every waiting condition; resumes those that hold.
    func notify() {
        observer?()
        let ready = waiters.filter { $0.value.condition() }
        for (id, waiter) in ready {
            waiters[id] = nil
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }

    /// Returns once `condition` holds, checking it now and after every change.
    /// - Parameters:
    ///   - what: What is awaited, for the failure message.
    ///   - timeout: How long to wait at most.
    ///   - condition: The state to wait for.
    /// - Throws: ``DemoFailure`` when the time runs out first.
    func wait(
        for what: String, timeout: Duration = .seconds(30), until condition: @escaping @MainActor () -> Bool
    ) async throws {
        if condition() { return }
        let id = UUID()
        try await withCheckedThrowingContinuation { continuation in
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self?.expire(id, DemoFailure("timed out after \(timeout) waiting for \(what)"))
            }
            waiters[id] = Waiter(condition: condition, continuation: continuation, timer: timer)
        }
    }

    private func expire(_ id: UUID, _ failure: DemoFailure) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.continuation.resume(throwing: failure)
    }
}

/// A scenario that did not behave as shown.
struct DemoFailure: Error, CustomStringConvertible {
    /// What went wrong, in a sentence.
    let description: String

    /// - Parameter description: What went wrong.
    init(_ description: String) {
        self.description = description
    }
}
