import Foundation
import Testing

@testable import Formwork

/// Drains every pending handler of `machine`, returning the indexes it was told to run.
func drainAll(_ machine: inout RequestStateMachine) -> (ran: [Int], last: RequestStateMachine.Action) {
    var ran: [Int] = []
    while true {
        let action = machine.handlerFinished()
        guard case .runHandler(let index) = action else { return (ran, action) }
        ran.append(index)
    }
}

@Suite("Request state machine: delivery to handlers and reloads")
struct RequestStateMachineDeliveryTests {
    @Test("Handlers chained before the end run once each, in order, after the outcome is recorded")
    func drainInOrder() {
        var machine = runningMachine()
        #expect(machine.handlerChained() == .none)
        #expect(machine.handlerChained() == .none)
        #expect(machine.completed(attempt: 1, failure: nil) == .deliver(.reported, cancellingTask: false))
        #expect(machine.handlerChained() == .none)  // the outcome is not recorded yet
        #expect(machine.outcomeRecorded(.test) == .startDraining)
        let (ran, last) = drainAll(&machine)
        #expect(ran == [0, 1, 2])
        #expect(last == .none)
        #expect(!machine.isDraining)
    }

    @Test("A handler chained after the end starts a drain; one chained during a drain joins it")
    func handlerChainedAfterFinish() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: nil)
        #expect(machine.outcomeRecorded(.test) == .none)  // no handler yet
        #expect(machine.handlerChained() == .startDraining)
        #expect(machine.handlerFinished() == .runHandler(index: 0))
        #expect(machine.handlerChained() == .none)  // the running drain takes it
        #expect(machine.handlerFinished() == .runHandler(index: 1))
        #expect(machine.handlerFinished() == .none)
        #expect(machine.handlerChained() == .startDraining)
        #expect(machine.handlerFinished() == .runHandler(index: 2))
        #expect(machine.handlersRun == 3)
    }

    @Test("A cancelled request delivers its outcome to every handler too")
    func cancelledDelivers() {
        var machine = RequestStateMachine()
        _ = machine.handlerChained()
        _ = machine.start()
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.outcomeRecorded(.test) == .startDraining)
        #expect(drainAll(&machine).ran == [0])
    }

    @Test("A reload of a delivered request starts a new attempt; every handler runs again")
    func reloadAfterDelivery() {
        var machine = runningMachine()
        _ = machine.handlerChained()
        _ = machine.completed(attempt: 1, failure: nil)
        _ = machine.outcomeRecorded(.test)
        _ = drainAll(&machine)
        #expect(machine.reload() == .reload(attempt: 2))
        #expect(machine.position == .adapting(attempt: 2))
        #expect(!machine.hasOutcome)
        #expect(machine.handlersRun == 0)
        _ = machine.adapted(attempt: 2, prepared: .test)
        _ = machine.completed(attempt: 2, failure: nil)
        #expect(machine.outcomeRecorded(.test) == .startDraining)
        #expect(drainAll(&machine).ran == [0])
    }

    @Test("A reload while a handler runs waits for the drain, then starts")
    func reloadWhileHandlerRuns() {
        var machine = runningMachine()
        _ = machine.handlerChained()
        _ = machine.handlerChained()
        _ = machine.completed(attempt: 1, failure: nil)
        _ = machine.outcomeRecorded(.test)
        #expect(machine.handlerFinished() == .runHandler(index: 0))
        #expect(machine.reload() == .none)
        #expect(machine.reloadPending)
        #expect(machine.position == .finished)
        #expect(machine.handlerFinished() == .runHandler(index: 1))
        #expect(machine.handlerFinished() == .reload(attempt: 2))
        #expect(!machine.reloadPending)
        #expect(machine.position == .adapting(attempt: 2))
    }

    @Test("A reload before the outcome is recorded waits for the delivery")
    func reloadBeforeOutcomeRecorded() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: nil)
        #expect(machine.reload() == .none)
        #expect(machine.outcomeRecorded(.test) == .reload(attempt: 2))
    }

    @Test("A cancel during a reload ends the new attempt as cancelled; the request stays cancelled")
    func cancelDuringReload() {
        var machine = runningMachine()
        _ = machine.handlerChained()
        _ = machine.completed(attempt: 1, failure: nil)
        _ = machine.outcomeRecorded(.test)
        _ = drainAll(&machine)
        _ = machine.reload()
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.adapted(attempt: 2, prepared: .test) == .discardRequest)
        #expect(machine.outcomeRecorded(.test) == .startDraining)
        #expect(drainAll(&machine).ran == [0])
        #expect(machine.reload() == .none)
        #expect(machine.position == .cancelled)
    }

    @Test("A finished request ignores cancel: a reload pending behind the drain still starts")
    func pendingReloadSurvivesCancel() {
        var machine = runningMachine()
        _ = machine.handlerChained()
        _ = machine.completed(attempt: 1, failure: nil)
        _ = machine.outcomeRecorded(.test)
        _ = machine.handlerFinished()
        _ = machine.reload()
        #expect(machine.cancel() == .ignore)
        #expect(machine.handlerFinished() == .reload(attempt: 2))
    }

    @Test("A running or cancelled request does not reload")
    func reloadNotDone() {
        var running = runningMachine()
        #expect(running.reload() == .none)
        #expect(running.position == .running(attempt: 1))
        #expect(!running.reloadPending)

        var cancelled = runningMachine()
        _ = cancelled.cancel()
        _ = cancelled.outcomeRecorded(.test)
        #expect(cancelled.reload() == .none)
        #expect(cancelled.position == .cancelled)
    }
}
