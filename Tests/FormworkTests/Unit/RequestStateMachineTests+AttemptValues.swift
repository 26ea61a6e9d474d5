import Foundation
import Testing

@testable import Formwork

/// The machine's states carry their attempt's values (issue 24 §1): a new attempt starts empty by
/// construction, and an ended request keeps its last attempt's values for its outcome.
@Suite("Request state machine: the values of each attempt")
struct RequestStateMachineAttemptValuesTests {
    /// Records a failed attempt's response and body, as the owner does on its task's events.
    private func receiveFailure(_ machine: inout RequestStateMachine, attempt: Int) {
        machine.updateRunning(attempt: attempt) { values in
            values.body.append(Data("oops".utf8))
            values.bytesReceived = 4
            values.progress = TransferProgress(completedBytes: 4, totalBytes: 4)
            values.settledFailure = transportFailure
        }
    }

    @Test("A retry's attempt starts with nothing received: the failed attempt's body stays behind")
    func retryStartsEmpty() {
        var machine = runningMachine()
        receiveFailure(&machine, attempt: 1)
        _ = machine.completed(attempt: 1, failure: transportFailure)
        #expect(machine.latest?.body == Data("oops".utf8))  // the retriers see the failed attempt
        _ = machine.retryDecided(attempt: 1, delay: 0)
        _ = machine.retryWaitEnded(attempt: 1)
        #expect(machine.latest?.number == 1)  // kept while the next one is built
        _ = machine.adapted(attempt: 2, prepared: .test)
        let values = machine.latest
        #expect(values?.number == 2)
        #expect(values?.body.isEmpty == true)
        #expect(values?.bytesReceived == 0)
        #expect(values?.progress == nil)
        #expect(values?.settledFailure == nil)
    }

    @Test("A restart (the next download segment) starts with nothing received")
    func restartStartsEmpty() {
        var machine = runningMachine()
        receiveFailure(&machine, attempt: 1)
        #expect(machine.restartRequested(attempt: 1) == .cancelTaskAndBuildRequest(attempt: 2))
        _ = machine.adapted(attempt: 2, prepared: .test)
        #expect(machine.latest?.body.isEmpty == true)
        #expect(machine.latest?.settledFailure == nil)
    }

    @Test("A reload drops the last run's attempt; an ended request keeps it for its outcome")
    func reloadDropsTheLastAttempt() {
        var machine = runningMachine()
        receiveFailure(&machine, attempt: 1)
        _ = machine.completed(attempt: 1, failure: nil)
        #expect(machine.position == .finished)
        #expect(machine.latest?.body == Data("oops".utf8))
        _ = machine.outcomeRecorded(.test)
        _ = machine.reload()
        #expect(machine.position == .adapting(attempt: 2))
        #expect(machine.latest == nil)
    }

    @Test("Events of a stale attempt change nothing")
    func staleEventsChangeNothing() {
        var machine = runningMachine()
        _ = machine.restartRequested(attempt: 1)
        _ = machine.adapted(attempt: 2, prepared: .test)
        let changed = machine.updateRunning(attempt: 1) { values -> Bool in
            values.body.append(Data("late".utf8))
            return true
        }
        #expect(changed == nil)
        #expect(machine.latest?.body.isEmpty == true)
    }

    @Test("A cancel keeps the attempt the request was at, for its outcome")
    func cancelKeepsTheAttempt() {
        var machine = runningMachine()
        receiveFailure(&machine, attempt: 1)
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: true))
        #expect(machine.position == .cancelled)
        #expect(machine.latest?.number == 1)
        #expect(machine.latest?.body == Data("oops".utf8))
    }
}
