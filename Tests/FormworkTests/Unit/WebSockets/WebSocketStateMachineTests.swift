import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The rules of a WebSocket's connections, without a network.
@Suite("WebSocket state machine")
struct WebSocketStateMachineTests {
    typealias Machine = WebSocketStateMachine

    static let lost = StubWebSocketTransport.lost

    func wait(_ action: Machine.Action) -> (seconds: TimeInterval, attempt: Int)? {
        guard case .wait(let seconds, let attempt) = action else { return nil }
        return (seconds, attempt)
    }

    func finalState(_ action: Machine.Action) -> WebSocketState? {
        guard case .finish(let state) = action else { return nil }
        return state
    }

    @Test("Start connects once; the first connection opens")
    func startsOnce() {
        var machine = Machine(policy: .never)
        guard case .connect(attempt: 1) = machine.start() else {
            Issue.record("start did not connect")
            return
        }
        guard case .none = machine.start() else {
            Issue.record("a second start did something")
            return
        }
        let opened = machine.opened(attempt: 1)
        #expect(opened)
        #expect(machine.isOpen)
    }

    @Test("Without reconnection, a drop fails the socket with the drop's error")
    func neverReconnects() throws {
        var machine = Machine(policy: .never)
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        let state = try #require(finalState(machine.ended(attempt: 1, .failed(Self.lost), random: 0)))
        guard case .failed(let error) = state else {
            Issue.record("not failed: \(state)")
            return
        }
        #expect(error.kind == .transport)
        #expect(machine.phase == .finished)
    }

    @Test("A server close with a code that may come back reconnects after the initial delay plus jitter")
    func reconnectsAfterGoingAway() throws {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        let close = WebSocketClose(code: .goingAway, reason: "restart")
        let waited = try #require(wait(machine.ended(attempt: 1, .closedByServer(close), random: 1)))
        #expect(waited.attempt == 2)
        #expect(waited.seconds == 1.25)
        guard case .connect(attempt: 2) = machine.waited(attempt: 2) else {
            Issue.record("the wait did not lead to connection 2")
            return
        }
    }

    @Test("A close code that means 'do not come back' ends the socket", arguments: [1000, 1008, 1003])
    func finalCloseCodes(code: UInt16) throws {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        let close = WebSocketClose(code: WebSocketCloseCode(rawValue: code), reason: "bye")
        let state = try #require(finalState(machine.ended(attempt: 1, .closedByServer(close), random: 0)))
        guard case .closed(let received) = state else {
            Issue.record("not closed: \(state)")
            return
        }
        #expect(received == close)
    }

    @Test("Failed connections back off (doubling, capped) and give up after the limit")
    func backOffAndLimit() throws {
        var policy = WebSocketReconnection(initialDelay: 1, maximumDelay: 3, jitter: 0.5, maximumAttempts: 4)
        policy.finalCloseCodes = []
        var machine = Machine(policy: policy)
        _ = machine.start()
        var waits: [TimeInterval] = []
        var attempt = 1
        while true {
            let action = machine.ended(attempt: attempt, .notOpened(Self.lost), random: 0)
            guard let waited = wait(action) else {
                let state = try #require(finalState(action))
                guard case .failed = state else {
                    Issue.record("not failed: \(state)")
                    return
                }
                break
            }
            waits.append(waited.seconds)
            attempt = waited.attempt
            _ = machine.waited(attempt: attempt)
        }
        #expect(waits == [1, 2, 3])
    }

    @Test("An open connection resets the back-off")
    func openResets() throws {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        let first = try #require(wait(machine.ended(attempt: 1, .notOpened(Self.lost), random: 0)))
        _ = machine.waited(attempt: first.attempt)
        let second = try #require(wait(machine.ended(attempt: 2, .notOpened(Self.lost), random: 0)))
        #expect(second.seconds == 2)
        _ = machine.waited(attempt: second.attempt)
        let opened = machine.opened(attempt: 3)
        #expect(opened)
        let third = try #require(wait(machine.ended(attempt: 3, .failed(Self.lost), random: 0)))
        #expect(third.seconds == 1)
    }

    @Test(
        "A refused handshake is final unless its status may pass",
        arguments: [(403, false), (503, true), (429, true)])
    func refusals(status: Int, reconnects: Bool) {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        let action = machine.ended(attempt: 1, .notOpened(StubWebSocketTransport.refusal(status)), random: 0)
        #expect((wait(action) != nil) == reconnects)
    }

    @Test("Closing an open socket awaits the server's close; closing while down ends it at once")
    func closing() throws {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        guard case .sendClose = machine.closeRequested() else {
            Issue.record("closing an open socket sent no close frame")
            return
        }
        let answer = WebSocketClose(code: .normalClosure, reason: "ok")
        let state = try #require(finalState(machine.ended(attempt: 1, .closedByServer(answer), random: 0)))
        guard case .closed(let close) = state else {
            Issue.record("not closed: \(state)")
            return
        }
        #expect(close == answer)

        var waiting = Machine(policy: .standard)
        _ = waiting.start()
        _ = waiting.ended(attempt: 1, .notOpened(Self.lost), random: 0)
        guard case .finish(.closed(nil)) = waiting.closeRequested() else {
            Issue.record("closing while waiting did not end the socket")
            return
        }
        guard case .none = waiting.waited(attempt: 2) else {
            Issue.record("the wait of a closed socket connected again")
            return
        }
    }

    @Test("Events of a connection the socket no longer uses do nothing")
    func staleEvents() {
        var machine = Machine(policy: .standard)
        _ = machine.start()
        guard case .finish = machine.cancelled() else {
            Issue.record("cancel did not end the socket")
            return
        }
        let opened = machine.opened(attempt: 1)
        #expect(!opened)
        guard case .none = machine.ended(attempt: 1, .failed(Self.lost), random: 0) else {
            Issue.record("a stale end did something")
            return
        }
    }
}
