import Foundation
import Testing

@testable import Formwork

/// A machine whose first outcome was delivered to its one handler.
private func deliveredMachine() -> RequestStateMachine {
    var machine = runningMachine()
    _ = machine.handlerChained()
    _ = machine.completed(attempt: 1, failure: nil)
    _ = machine.outcomeRecorded(.test)
    _ = drainAll(&machine)
    return machine
}

@Suite("Request state machine: background refresh (cache-then-network)")
struct RequestStateMachineBackgroundRefreshTests {
    @Test("A background reload says so in its action and marks the run, retries included")
    func backgroundReload() {
        var machine = deliveredMachine()
        #expect(!machine.isBackgroundRefresh)
        #expect(machine.reload(background: true) == .reload(attempt: 2, background: true))
        #expect(machine.isBackgroundRefresh)
        _ = machine.adapted(attempt: 2, prepared: .test)
        _ = machine.completed(attempt: 2, failure: transportFailure)
        _ = machine.retryDecided(attempt: 2, delay: 0)
        #expect(machine.retryWaitEnded(attempt: 2) == .buildRequest(attempt: 3))
        #expect(machine.isBackgroundRefresh)
    }

    @Test("A plain reload after a background refresh is a foreground run again")
    func foregroundAfterBackground() {
        var machine = deliveredMachine()
        _ = machine.reload(background: true)
        _ = machine.adapted(attempt: 2, prepared: .test)
        _ = machine.completed(attempt: 2, failure: nil)
        _ = machine.outcomeRecorded(.test)
        _ = drainAll(&machine)
        #expect(machine.reload() == .reload(attempt: 3, background: false))
        #expect(!machine.isBackgroundRefresh)
    }

    @Test("A background reload asked for during the delivery waits for it and stays a background one")
    func pendingBackground() {
        var machine = runningMachine()
        _ = machine.handlerChained()
        _ = machine.completed(attempt: 1, failure: nil)
        #expect(machine.reload(background: true) == .none)
        #expect(machine.reloadPending && machine.pendingReloadIsBackground)
        #expect(machine.outcomeRecorded(.test) == .startDraining)
        #expect(machine.handlerFinished() == .runHandler(index: 0))
        #expect(machine.handlerFinished() == .reload(attempt: 2, background: true))
        #expect(!machine.reloadPending && !machine.pendingReloadIsBackground)
    }

    @Test(
        "A foreground reload pending with a background one makes it a foreground one, in either order",
        arguments: [true, false])
    func foregroundWins(backgroundFirst: Bool) {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: nil)
        _ = machine.reload(background: backgroundFirst)
        _ = machine.reload(background: !backgroundFirst)
        #expect(!machine.pendingReloadIsBackground)
        #expect(machine.outcomeRecorded(.test) == .reload(attempt: 2, background: false))
        #expect(!machine.isBackgroundRefresh)
    }

    @Test("A cancelled or running request does not refresh in the background")
    func noRefreshWhenNotFinished() {
        var running = runningMachine()
        #expect(running.reload(background: true) == .none)
        #expect(!running.reloadPending)
        var cancelled = runningMachine()
        _ = cancelled.cancel()
        #expect(cancelled.reload(background: true) == .none)
    }
}
