import Foundation
import Testing

@testable import Formwork

/// A timer handle for the machine's tests: the machine only keeps it and hands it back.
private func timer() -> RequestStateMachine.Timer { Task {} }

/// A failure that is a cancellation.
private let cancelledFailure = NetworkError.cancelled(request: nil, response: nil)

@Suite("Request state machine: verdicts of the sink and the cache, interruptions")
struct RequestStateMachineVerdictTests {
    @Test("A success ends the request unless the sink wants the next segment, which restarts at once")
    func nextSegment() {
        var ending = runningMachine()
        #expect(ending.attemptSucceeded(attempt: 1) == .deliver(.reported, cancellingTask: false))
        #expect(ending.position == .finished)

        var segmenting = runningMachine()
        #expect(
            segmenting.attemptSucceeded(attempt: 1, wantsNextSegment: true)
                == .cancelTaskAndBuildRequest(attempt: 2))
        #expect(segmenting.position == .adapting(attempt: 2))
        #expect(segmenting.retryCount == 0)
        #expect(segmenting.attemptSucceeded(attempt: 1, wantsNextSegment: true) == .ignore)
    }

    @Test("A failure with a reconnection from the sink waits that long, with the retry count reset")
    func reconnectVerdict() {
        var machine = runningMachine()
        _ = machine.attemptFailed(attempt: 1, failure: transportFailure)
        _ = machine.retryDecided(attempt: 1, delay: 0)
        _ = machine.retryWaitEnded(attempt: 1)
        _ = machine.adapted(attempt: 2, prepared: .test)
        #expect(machine.retryCount == 1)
        #expect(
            machine.attemptFailed(attempt: 2, failure: transportFailure, reconnectAfter: 2)
                == .scheduleRetry(after: 2, attempt: 2))
        #expect(machine.position == .waitingToRetry(attempt: 2))
        #expect(machine.retryCount == 0)
    }

    @Test("A failure without a verdict goes to the retriers; a cancellation ends the request")
    func plainFailure() {
        var failing = runningMachine()
        #expect(failing.attemptFailed(attempt: 1, failure: transportFailure) == .askRetriers(attempt: 1))
        var cancelled = runningMachine()
        #expect(
            cancelled.attemptFailed(attempt: 1, failure: cancelledFailure, reconnectAfter: 1)
                == .deliver(.reported, cancellingTask: false))
    }

    @Test("A failed cached first answer is dropped: the next attempt starts at once, without retriers")
    func dropsCachedAnswer() {
        var machine = runningMachine()
        #expect(
            machine.attemptFailed(attempt: 1, failure: transportFailure, isCachedFirstAnswer: true)
                == .cancelTaskAndBuildRequest(attempt: 2))
        #expect(machine.position == .adapting(attempt: 2))
        #expect(machine.retryCount == 0)

        var cancelled = runningMachine()
        #expect(
            cancelled.attemptFailed(attempt: 1, failure: cancelledFailure, isCachedFirstAnswer: true)
                == .deliver(.reported, cancellingTask: false))
    }

    @Test("Completions of an attempt that is no longer running are ignored")
    func staleCompletions() {
        var machine = runningMachine()
        _ = machine.cancel()
        #expect(machine.attemptSucceeded(attempt: 1, wantsNextSegment: true) == .ignore)
        #expect(machine.attemptFailed(attempt: 1, failure: transportFailure, reconnectAfter: 1) == .ignore)
        #expect(machine.position == .cancelled)
    }

    @Test("An idle timeout interrupts the running attempt; a late one is ignored")
    func idleTimeout() {
        var machine = runningMachine()
        #expect(machine.idleTimedOut(attempt: 1) == .interruptAttempt(attempt: 1, .idleTimeout))
        #expect(machine.position == .running(attempt: 1))  // the completion that follows decides
        _ = machine.attemptFailed(attempt: 1, failure: transportFailure)
        #expect(machine.idleTimedOut(attempt: 1) == .ignore)
    }

    @Test("A failed sink write keeps the sink's error in the attempt and interrupts it once")
    func sinkWriteFailure() {
        let machine = runningMachine()
        let failure = NetworkError(.transport, failureReason: "disk full")
        #expect(
            machine.sinkWriteFailed(attempt: 1, error: failure)
                == .interruptAttempt(attempt: 1, .sinkWriteFailed))
        #expect(machine.latest?.sinkFailure?.failureReason == "disk full")
        #expect(machine.sinkWriteFailed(attempt: 1, error: failure) == .ignore)
    }

    @Test("The retry wait lives in its state: the end hands it back to be cancelled")
    func retryWaitInState() {
        var machine = runningMachine()
        _ = machine.attemptFailed(attempt: 1, failure: transportFailure)
        _ = machine.retryDecided(attempt: 1, delay: 5)
        let wait = timer()
        #expect(machine.retryWaitStarted(attempt: 1, timer: wait) == .record)
        let second = timer()
        #expect(machine.retryWaitStarted(attempt: 1, timer: second) == .cancelTimer(second))
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false, retryWait: wait))
        let late = timer()
        #expect(machine.retryWaitStarted(attempt: 1, timer: late) == .cancelTimer(late))
    }

    @Test("A deadline replaces the previous one, except the session's replacing the request's own")
    func deadlineReplacement() {
        var machine = RequestStateMachine()
        let session = timer()
        #expect(machine.deadlineSet(seconds: 10, own: false, timer: session) == .none)
        let own = timer()
        #expect(machine.deadlineSet(seconds: 5, own: true, timer: own) == .cancelTimer(session))
        let later = timer()
        #expect(machine.deadlineSet(seconds: 10, own: false, timer: later) == .cancelTimer(later))
        #expect(machine.deadline.seconds == 5 && machine.deadline.isOwn)
    }

    @Test("The end hands back the deadline's timer; a reload keeps its seconds for the new run")
    func deadlineAcrossRuns() {
        var machine = runningMachine()
        let first = timer()
        _ = machine.deadlineSet(seconds: 3, own: true, timer: first)
        #expect(
            machine.attemptSucceeded(attempt: 1)
                == .deliver(.reported, cancellingTask: false, deadline: first))
        #expect(machine.deadline.timer == nil)
        _ = machine.outcomeRecorded(.test)
        #expect(machine.reload() == .reload(attempt: 2))
        #expect(machine.deadline.seconds == 3 && machine.deadline.isOwn)
        let second = timer()
        #expect(machine.deadlinePassed() == .deliver(.deadlineExceeded, cancellingTask: false))
        #expect(machine.deadlineSet(seconds: 3, own: true, timer: second) == .none)
    }

    @Test("The outcome lives in the ended state: recorded once, dropped by a reload")
    func outcomeInState() {
        var machine = runningMachine()
        #expect(machine.outcome == nil)
        _ = machine.attemptSucceeded(attempt: 1)
        #expect(machine.outcome == nil)
        _ = machine.outcomeRecorded(.test)
        #expect(machine.outcome?.attempt == 1)
        _ = machine.reload()
        #expect(machine.outcome == nil)
        #expect(!machine.hasOutcome)
    }
}
