import Foundation
import Testing

@testable import Formwork

@Suite("Idle timeout rules")
struct IdleTimeoutTests {
    let start = Date(timeIntervalSinceReferenceDate: 0)

    @Test(
        "URLSession gets whole seconds, rounded up, at least one",
        arguments: [(0.2, 1.0), (0.5, 1.0), (1.0, 1.0), (1.5, 2.0), (60.0, 60.0)] as [(Double, Double)])
    func roundedForURLSession(seconds: Double, expected: Double) {
        #expect(IdleTimeout.forURLSession(seconds) == expected)
    }

    @Test("Over URLSession, only timeouts that are not whole seconds are watched by Formwork")
    func watchedOnlyWhenNotWhole() {
        let transport = URLSessionTransport(configuration: .ephemeral)
        #expect(IdleTimeout.watched(0.3, enforcedBy: transport) == 0.3)
        #expect(IdleTimeout.watched(2.5, enforcedBy: transport) == 2.5)
        #expect(IdleTimeout.watched(1, enforcedBy: transport) == nil)
        #expect(IdleTimeout.watched(60, enforcedBy: transport) == nil)
        #expect(IdleTimeout.watched(.infinity, enforcedBy: transport) == nil)
    }

    @Test("Formwork watches every idle timeout of a transport that does not declare it enforces them")
    func watchedForOtherTransports() {
        let transport = DeclaresNothing()
        #expect(IdleTimeout.watched(1, enforcedBy: transport) == 1)
        #expect(IdleTimeout.watched(0.3, enforcedBy: transport) == 0.3)
        #expect(IdleTimeout.watched(0, enforcedBy: transport) == nil)
    }

    @Test("Checks every 0.1 s, or sooner for a shorter timeout")
    func checkInterval() {
        #expect(IdleTimeout(seconds: 0.3, now: start).checkInterval == 0.1)
        #expect(IdleTimeout(seconds: 0.05, now: start).checkInterval == 0.05)
    }

    @Test("Nothing happening for the whole timeout expires it; not a moment before")
    func expiresWhenIdle() {
        var timeout = IdleTimeout(seconds: 0.3, now: start)
        var expired: Bool
        let idle = IdleTimeout.Activity()
        expired = timeout.check(idle, now: start.addingTimeInterval(0.1))
        #expect(!expired)
        expired = timeout.check(idle, now: start.addingTimeInterval(0.29))
        #expect(!expired)
        expired = timeout.check(idle, now: start.addingTimeInterval(0.3))
        #expect(expired)
    }

    @Test("Any activity (headers, bytes in, bytes out) starts the idle time again")
    func activityResets() {
        var timeout = IdleTimeout(seconds: 0.3, now: start)
        var expired: Bool
        var activity = IdleTimeout.Activity()
        activity.hasResponse = true
        expired = timeout.check(activity, now: start.addingTimeInterval(0.25))
        #expect(!expired)
        expired = timeout.check(activity, now: start.addingTimeInterval(0.5))
        #expect(!expired)
        activity.bytesReceived = 10
        expired = timeout.check(activity, now: start.addingTimeInterval(0.54))
        #expect(!expired)
        activity.bytesSent = 5
        expired = timeout.check(activity, now: start.addingTimeInterval(0.8))
        #expect(!expired)
        expired = timeout.check(activity, now: start.addingTimeInterval(1.0))
        #expect(!expired)
        expired = timeout.check(activity, now: start.addingTimeInterval(1.1))
        #expect(expired)
    }
}

/// A transport that declares nothing about idle timeouts (its tasks do nothing).
private struct DeclaresNothing: Transport {
    final class NoTask: TransportTask {
        func resume() {}
        func cancel() {}
    }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        NoTask()
    }
}
