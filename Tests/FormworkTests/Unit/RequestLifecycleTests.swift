import Testing

@testable import Formwork

@Suite("Request lifecycle state machine")
struct RequestLifecycleTests {
    @Test("A request goes initialized → adapting → running → finished")
    func happyPath() {
        var machine = RequestLifecycle()
        #expect(machine.state == .initialized)
        #expect(machine.start() == .buildRequest(attempt: 1))
        #expect(machine.state == .adapting)
        #expect(machine.requestBuilt(attempt: 1) == .resumeTask)
        #expect(machine.state == .running)
        #expect(machine.shouldEvaluateCompletion(attempt: 1))
        #expect(machine.finish(attempt: 1) == .deliver)
        #expect(machine.state == .finished)
        #expect(machine.isDone)
    }

    @Test("Starting twice does nothing the second time")
    func startIsIdempotent() {
        var machine = RequestLifecycle()
        _ = machine.start()
        #expect(machine.start() == .none)
        #expect(machine.attempt == 1)
    }

    @Test("Cancelling while running cancels the task; the completion that follows is ignored")
    func cancelWhileRunning() {
        var machine = RequestLifecycle()
        _ = machine.start()
        _ = machine.requestBuilt(attempt: 1)
        #expect(machine.cancel() == .cancelTaskAndDeliver)
        #expect(machine.state == .cancelled)
        #expect(!machine.shouldEvaluateCompletion(attempt: 1))
        #expect(machine.finish(attempt: 1) == .ignore)
        #expect(machine.cancel() == .none)
    }

    @Test("Cancelling while the request is being built discards it when it is ready")
    func cancelWhileAdapting() {
        var machine = RequestLifecycle()
        _ = machine.start()
        #expect(machine.cancel() == .deliver)
        #expect(machine.requestBuilt(attempt: 1) == .discard)
        #expect(machine.state == .cancelled)
    }

    @Test("Cancelling before start, after finish, and twice")
    func cancelEdges() {
        var fresh = RequestLifecycle()
        #expect(fresh.cancel() == .deliver)
        #expect(fresh.start() == .none)

        var done = RequestLifecycle()
        _ = done.start()
        _ = done.requestBuilt(attempt: 1)
        _ = done.finish(attempt: 1)
        #expect(done.cancel() == .none)
        #expect(done.state == .finished)
    }

    @Test("A build failure finishes the request from adapting")
    func buildFailure() {
        var machine = RequestLifecycle()
        _ = machine.start()
        #expect(machine.finish(attempt: 1) == .deliver)
        #expect(machine.requestBuilt(attempt: 1) == .discard)
    }

    @Test("A retry goes running → retrying → adapting with a new attempt; stale events are ignored")
    func retry() {
        var machine = RequestLifecycle()
        _ = machine.start()
        _ = machine.requestBuilt(attempt: 1)
        let retrying = machine.beginRetry(attempt: 1)
        #expect(retrying)
        #expect(machine.state == .retrying)
        #expect(machine.retryDelayElapsed() == .buildRequest(attempt: 2))
        #expect(machine.requestBuilt(attempt: 1) == .discard)
        #expect(machine.requestBuilt(attempt: 2) == .resumeTask)
        #expect(!machine.shouldEvaluateCompletion(attempt: 1))
        #expect(machine.finish(attempt: 1) == .ignore)
        #expect(machine.finish(attempt: 2) == .deliver)
    }

    @Test("Cancelling during the retry delay ends the request; the delay then does nothing")
    func cancelWhileRetrying() {
        var machine = RequestLifecycle()
        _ = machine.start()
        _ = machine.requestBuilt(attempt: 1)
        _ = machine.beginRetry(attempt: 1)
        #expect(machine.cancel() == .deliver)
        #expect(machine.retryDelayElapsed() == .none)
    }

    @Test("A finished request can restart (reload); a cancelled one cannot")
    func restart() {
        var machine = RequestLifecycle()
        _ = machine.start()
        _ = machine.requestBuilt(attempt: 1)
        _ = machine.finish(attempt: 1)
        #expect(machine.restart() == .buildRequest(attempt: 2))
        #expect(machine.state == .adapting)

        var cancelled = RequestLifecycle()
        _ = cancelled.cancel()
        #expect(cancelled.restart() == .none)
    }

    @Test("A deadline ends a live request as finished (not cancelled), from any live state")
    func expire() {
        var running = RequestLifecycle()
        _ = running.start()
        _ = running.requestBuilt(attempt: 1)
        #expect(running.expire() == .cancelTaskAndDeliver)
        #expect(running.state == .finished)
        #expect(running.finish(attempt: 1) == .ignore)

        var retrying = RequestLifecycle()
        _ = retrying.start()
        _ = retrying.requestBuilt(attempt: 1)
        _ = retrying.beginRetry(attempt: 1)
        #expect(retrying.expire() == .deliver)
        #expect(retrying.retryDelayElapsed() == .none)

        var done = RequestLifecycle()
        _ = done.cancel()
        #expect(done.expire() == .none)
        #expect(done.state == .cancelled)
    }
}
