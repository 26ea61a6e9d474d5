import Foundation
import Testing

@testable import Formwork

@Suite("Request state machine: stream reconnections")
struct RequestStateMachineReconnectTests {
    /// A machine whose attempt 1 failed and is with the retriers (where a stream's rule is asked).
    private func askingMachine() -> RequestStateMachine {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        return machine
    }

    @Test("A reconnection from askingRetriers waits, then builds the next attempt")
    func reconnect() {
        var machine = askingMachine()
        #expect(machine.reconnectDecided(attempt: 1, delay: 0.5) == .scheduleRetry(after: 0.5, attempt: 1))
        #expect(machine.position == .waitingToRetry(attempt: 1))
        #expect(machine.phase == .retrying)
        #expect(machine.retryWaitEnded(attempt: 1) == .buildRequest(attempt: 2))
        #expect(machine.position == .adapting(attempt: 2))
    }

    @Test("A reconnection starts the retry count again, so retriers get their budget per connection")
    func resetsRetryCount() {
        var machine = askingMachine()
        _ = machine.retryDecided(attempt: 1, delay: 0)
        _ = machine.retryWaitEnded(attempt: 1)
        _ = machine.adapted(attempt: 2, prepared: .test)
        _ = machine.completed(attempt: 2, failure: transportFailure)
        #expect(machine.retryCount == 1)
        _ = machine.reconnectDecided(attempt: 2, delay: 0)
        #expect(machine.retryCount == 0)
    }

    @Test("A negative delay waits zero")
    func negativeDelay() {
        var machine = askingMachine()
        #expect(machine.reconnectDecided(attempt: 1, delay: -1) == .scheduleRetry(after: 0, attempt: 1))
    }

    @Test(
        "A reconnection outside askingRetriers is ignored",
        arguments: ["running", "cancelled", "waiting", "finished"])
    func ignoredElsewhere(state: String) {
        var machine = runningMachine()
        switch state {
        case "cancelled": _ = machine.cancel()
        case "waiting":
            _ = machine.completed(attempt: 1, failure: transportFailure)
            _ = machine.reconnectDecided(attempt: 1, delay: 1)
        case "finished": _ = machine.completed(attempt: 1, failure: nil)
        default: break
        }
        let before = machine.position
        #expect(machine.reconnectDecided(attempt: 1, delay: 1) == .ignore)
        #expect(machine.position == before)
    }

    @Test("Cancelling during the wait before a reconnection ends the request without a task to cancel")
    func cancelWhileWaiting() {
        var machine = askingMachine()
        _ = machine.reconnectDecided(attempt: 1, delay: 3)
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.retryWaitEnded(attempt: 1) == .ignore)
    }
}
