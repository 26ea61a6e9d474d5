import Foundation
import Testing

@testable import Formwork

extension PreparedRequest {
    /// A request for the machine's tests, which never send it.
    static let test = PreparedRequest(urlRequest: URLRequest(url: URL(fileURLWithPath: "/")))
}

extension RequestOutcome {
    /// An outcome for the machine's tests, which only keep it.
    static let test = RequestOutcome(request: nil, head: nil, data: nil, error: nil, attempt: 1, duration: 0)
}

extension RequestStateMachine {
    /// The task of `attempt` ended (`failure` is nil for a success), with neither the sink nor the
    /// cache asking for anything: ``attemptSucceeded(attempt:wantsNextSegment:)`` or
    /// ``attemptFailed(attempt:failure:isCachedFirstAnswer:reconnectAfter:)``.
    mutating func completed(attempt: Int, failure: NetworkError?) -> Action {
        guard let failure else { return attemptSucceeded(attempt: attempt) }
        return attemptFailed(attempt: attempt, failure: failure)
    }
}

/// A machine driven to `running(attempt: 1)`.
func runningMachine() -> RequestStateMachine {
    var machine = RequestStateMachine()
    _ = machine.start()
    _ = machine.adapted(attempt: 1, prepared: .test)
    return machine
}

/// An attempt's failure that the retriers are asked about.
let transportFailure = NetworkError(
    .transport, failureReason: "cut", underlyingError: URLError(.networkConnectionLost))

@Suite("Request state machine: attempts, retries, cancel, deadline")
struct RequestStateMachineTests {
    @Test("A request goes initialized → adapting → running → finished")
    func happyPath() {
        var machine = RequestStateMachine()
        #expect(machine.position == .initialized)
        #expect(machine.start() == .buildRequest(attempt: 1))
        #expect(machine.position == .adapting(attempt: 1))
        #expect(machine.adapted(attempt: 1, prepared: .test) == .createAndResumeTask(attempt: 1))
        #expect(machine.position == .running(attempt: 1))
        #expect(machine.responseReceived(attempt: 1) == .record)
        #expect(machine.dataReceived(attempt: 1) == .record)
        #expect(machine.completed(attempt: 1, failure: nil) == .deliver(.reported, cancellingTask: false))
        #expect(machine.position == .finished)
        #expect(machine.isDone)
    }

    @Test("Starting twice does nothing the second time")
    func startIsIdempotent() {
        var machine = RequestStateMachine()
        _ = machine.start()
        #expect(machine.start() == .none)
        #expect(machine.attempt == 1)
    }

    @Test("A build failure ends the request from adapting, without the retriers")
    func buildFailure() {
        var machine = RequestStateMachine()
        _ = machine.start()
        #expect(machine.adaptFailed(attempt: 1) == .deliver(.reported, cancellingTask: false))
        #expect(machine.position == .finished)
        #expect(machine.adapted(attempt: 1, prepared: .test) == .discardRequest)
    }

    @Test("A failure goes to the retriers; a retry waits, then builds the next attempt")
    func retry() {
        var machine = runningMachine()
        #expect(machine.completed(attempt: 1, failure: transportFailure) == .askRetriers(attempt: 1))
        #expect(machine.position == .askingRetriers(attempt: 1))
        #expect(machine.retryDecided(attempt: 1, delay: 0.5) == .scheduleRetry(after: 0.5, attempt: 1))
        #expect(machine.retryCount == 1)
        #expect(machine.position == .waitingToRetry(attempt: 1))
        #expect(machine.retryWaitEnded(attempt: 1) == .buildRequest(attempt: 2))
        #expect(machine.adapted(attempt: 2, prepared: .test) == .createAndResumeTask(attempt: 2))
        #expect(machine.completed(attempt: 2, failure: nil) == .deliver(.reported, cancellingTask: false))
    }

    @Test("A negative retry delay waits zero seconds")
    func negativeDelay() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        #expect(machine.retryDecided(attempt: 1, delay: -3) == .scheduleRetry(after: 0, attempt: 1))
    }

    @Test("Retriers that let the failure stand end the request with it")
    func retryNotNeeded() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        #expect(machine.retryNotNeeded(attempt: 1) == .deliver(.reported, cancellingTask: false))
        #expect(machine.position == .finished)
        #expect(machine.retryCount == 0)
    }

    @Test("A cancellation reported by the task ends the request without asking the retriers")
    func cancelledFailureIsNotRetried() {
        var machine = runningMachine()
        let cancelled = NetworkError.cancelled(request: nil)
        #expect(
            machine.completed(attempt: 1, failure: cancelled) == .deliver(.reported, cancellingTask: false))
    }

    @Test("Data and completion of an old attempt after a retry started are ignored")
    func staleAttemptAfterRetry() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        _ = machine.retryDecided(attempt: 1, delay: 0)
        _ = machine.retryWaitEnded(attempt: 1)
        #expect(machine.adapted(attempt: 1, prepared: .test) == .discardRequest)
        #expect(machine.adapted(attempt: 2, prepared: .test) == .createAndResumeTask(attempt: 2))
        #expect(machine.responseReceived(attempt: 1) == .ignore)
        #expect(machine.dataReceived(attempt: 1) == .ignore)
        #expect(machine.completed(attempt: 1, failure: nil) == .ignore)
        #expect(machine.position == .running(attempt: 2))
        #expect(!machine.acceptsProgress(attempt: 1))
        #expect(machine.acceptsProgress(attempt: 2))
    }

    @Test("A restart drops the running attempt and builds the next at once; the old one's events are ignored")
    func restartRequested() {
        var machine = runningMachine()
        #expect(machine.restartRequested(attempt: 1) == .cancelTaskAndBuildRequest(attempt: 2))
        #expect(machine.position == .adapting(attempt: 2))
        #expect(machine.retryCount == 0)
        #expect(machine.completed(attempt: 1, failure: nil) == .ignore)
        #expect(machine.restartRequested(attempt: 1) == .ignore)
    }

    // MARK: Cancel

    @Test("Cancelling while running cancels the task; the completion and data that follow are ignored")
    func cancelWhileRunning() {
        var machine = runningMachine()
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: true))
        #expect(machine.position == .cancelled)
        #expect(machine.dataReceived(attempt: 1) == .ignore)
        #expect(machine.responseReceived(attempt: 1) == .ignore)
        #expect(machine.completed(attempt: 1, failure: nil) == .ignore)
        #expect(!machine.acceptsProgress(attempt: 1))
        #expect(machine.cancel() == .ignore)
    }

    @Test("Cancelling during adapt ends the request; the request built then is discarded")
    func cancelWhileAdapting() {
        var machine = RequestStateMachine()
        _ = machine.start()
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.adapted(attempt: 1, prepared: .test) == .discardRequest)
        #expect(machine.adaptFailed(attempt: 1) == .ignore)
        #expect(machine.position == .cancelled)
    }

    @Test("Cancelling during the retry wait ends the request; the end of the wait does nothing")
    func cancelWhileWaitingToRetry() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        _ = machine.retryDecided(attempt: 1, delay: 10)
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.retryWaitEnded(attempt: 1) == .ignore)
        #expect(machine.position == .cancelled)
        #expect(machine.attempt == 1)
    }

    @Test("Cancelling while the retriers decide: their decision is ignored")
    func cancelWhileAskingRetriers() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        #expect(machine.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(machine.retryDecided(attempt: 1, delay: 0) == .ignore)
        #expect(machine.retryNotNeeded(attempt: 1) == .ignore)
        #expect(machine.retryCount == 0)
    }

    @Test("Cancelling before start, after completion, and twice")
    func cancelEdges() {
        var fresh = RequestStateMachine()
        #expect(fresh.cancel() == .deliver(.cancelled, cancellingTask: false))
        #expect(fresh.start() == .none)
        #expect(fresh.cancel() == .ignore)

        var done = runningMachine()
        _ = done.completed(attempt: 1, failure: nil)
        #expect(done.cancel() == .ignore)
        #expect(done.position == .finished)
    }

    // MARK: Deadline

    @Test("A deadline ends a running request as failed (not cancelled), cancelling its task")
    func deadlineWhileRunning() {
        var machine = runningMachine()
        #expect(machine.deadlinePassed() == .deliver(.deadlineExceeded, cancellingTask: true))
        #expect(machine.position == .finished)
        #expect(machine.completed(attempt: 1, failure: nil) == .ignore)
    }

    @Test("A deadline during the retry wait ends the request; the wait's end does nothing")
    func deadlineWhileWaitingToRetry() {
        var machine = runningMachine()
        _ = machine.completed(attempt: 1, failure: transportFailure)
        _ = machine.retryDecided(attempt: 1, delay: 10)
        #expect(machine.deadlinePassed() == .deliver(.deadlineExceeded, cancellingTask: false))
        #expect(machine.retryWaitEnded(attempt: 1) == .ignore)
        #expect(machine.position == .finished)
    }

    @Test("A deadline during adapt or while the retriers decide ends the request")
    func deadlineWhileAdaptingOrAsking() {
        var adapting = RequestStateMachine()
        _ = adapting.start()
        #expect(adapting.deadlinePassed() == .deliver(.deadlineExceeded, cancellingTask: false))
        #expect(adapting.adapted(attempt: 1, prepared: .test) == .discardRequest)

        var asking = runningMachine()
        _ = asking.completed(attempt: 1, failure: transportFailure)
        #expect(asking.deadlinePassed() == .deliver(.deadlineExceeded, cancellingTask: false))
        #expect(asking.retryDecided(attempt: 1, delay: 0) == .ignore)
    }

    @Test("A deadline after the end, after a cancel or before start does nothing")
    func deadlineWhenNotLive() {
        var fresh = RequestStateMachine()
        #expect(fresh.deadlinePassed() == .ignore)
        #expect(fresh.position == .initialized)

        var cancelled = runningMachine()
        _ = cancelled.cancel()
        #expect(cancelled.deadlinePassed() == .ignore)
        #expect(cancelled.position == .cancelled)

        var done = runningMachine()
        _ = done.completed(attempt: 1, failure: nil)
        #expect(done.deadlinePassed() == .ignore)
    }
}
