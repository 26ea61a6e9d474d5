import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The table of shared network requests, without a network: tasks are made and never resumed.
@Suite("Coalescer table")
struct CoalescerTests {
    private let urlSession = URLSession(configuration: .ephemeral)
    private let session = Session()

    private func key(_ path: String = "/a") throws -> CoalescingKey {
        let url = try #require(URL(string: "http://127.0.0.1\(path)"))
        return try #require(CoalescingKey(URLRequest(url: url)))
    }

    private func subscriber(attempt: Int = 1) -> Flight.Subscriber {
        let core = session.makeDataRequest(TestForm(url: "http://127.0.0.1/a")).core
        let sending = URLRequest(url: URL(fileURLWithPath: "/"))
        return SharedExchangeTask(
            events: AttemptEvents(core: core, attempt: attempt), sending: sending, report: nil)
    }

    private func enter(
        _ coalescer: Coalescer, _ key: CoalescingKey, _ subscriber: Flight.Subscriber,
        atCompletion: Bool = false
    ) -> Coalescer.Entry {
        coalescer.enter(key, as: subscriber, deliversAtCompletion: atCompletion) { _ in
            IdleTask()
        }
    }

    private func flight(_ entry: Coalescer.Entry, leads: Bool) -> Flight? {
        switch entry {
        case .lead(let flight): leads ? flight : nil
        case .follow(let flight): leads ? nil : flight
        }
    }

    @Test("The first request leads; identical ones follow the same flight, each with its own attempt")
    func leadThenFollow() throws {
        let coalescer = Coalescer()
        let key = try key()
        let first = subscriber(attempt: 1)
        let second = subscriber(attempt: 3)
        let lead = try #require(flight(enter(coalescer, key, first), leads: true))
        let follow = try #require(flight(enter(coalescer, key, second), leads: false))
        #expect(lead === follow)
        let targets = lead.deliveryTargets()
        #expect(targets.map { ($0.events as? AttemptEvents)?.attempt } == [1, 3])
        #expect(targets.last === second)
    }

    @Test("Another key leads its own flight")
    func otherKey() throws {
        let coalescer = Coalescer()
        let a = try #require(flight(enter(coalescer, try key("/a"), subscriber()), leads: true))
        let b = try #require(flight(enter(coalescer, try key("/b"), subscriber()), leads: true))
        #expect(a !== b)
        #expect(coalescer.openFlightCount == 2)
    }

    @Test("The task's first event closes the flight: a later identical request leads a new one")
    func closedByFirstEvent() throws {
        let coalescer = Coalescer()
        let key = try key()
        let old = try #require(flight(enter(coalescer, key, subscriber()), leads: true))
        _ = old.deliveryTargets()
        #expect(!old.isOpen)
        #expect(coalescer.openFlightCount == 0)
        let new = try #require(flight(enter(coalescer, key, subscriber()), leads: true))
        #expect(new !== old)
        #expect(coalescer.openFlightCount == 1)
        // The old flight closing again (a later event) does not drop the new one.
        _ = old.deliveryTargets()
        #expect(coalescer.openFlightCount == 1)
    }

    @Test("Leaving: the task is released only when the last subscriber leaves")
    func leaving() throws {
        let coalescer = Coalescer()
        let key = try key()
        let first = subscriber()
        let second = subscriber()
        let shared = try #require(flight(enter(coalescer, key, first), leads: true))
        _ = enter(coalescer, key, second)
        #expect(shared.leave(first) == false)
        #expect(shared.isOpen)
        #expect(shared.deliveryTargets().map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
        #expect(shared.leave(second) == true)
        #expect(coalescer.openFlightCount == 0)
    }

    @Test("When every subscriber left before any event, newcomers lead a new flight")
    func allLeftBeforeEvents() throws {
        let coalescer = Coalescer()
        let key = try key()
        let only = subscriber()
        let shared = try #require(flight(enter(coalescer, key, only), leads: true))
        #expect(shared.leave(only))
        #expect(!shared.isOpen)
        #expect(flight(enter(coalescer, key, subscriber()), leads: true) != nil)
    }

    @Test(
        "A request that needs task events never joins a task that delivers at completion; the reverse joins")
    func deliveryPaths() throws {
        let coalescer = Coalescer()
        let key = try key()
        let atCompletion = try #require(
            flight(enter(coalescer, key, subscriber(), atCompletion: true), leads: true))
        // Needs events: leads its own flight, which takes the key.
        let events = try #require(
            flight(enter(coalescer, key, subscriber(), atCompletion: false), leads: true))
        #expect(events !== atCompletion)
        // Satisfied at completion: may take the events of the delegate-path flight.
        let joined = try #require(
            flight(enter(coalescer, key, subscriber(), atCompletion: true), leads: false))
        #expect(joined === events)
    }
}

extension CoalescerTests {
    @Test("A leader cancelled before it started the exchange starts it for a caller that joined")
    func leaderLeavingUnstartedStartsTheExchange() throws {
        let coalescer = Coalescer()
        let key = try key()
        let base = CountingTask()
        let request = URLRequest(url: URL(fileURLWithPath: "/"))
        func shared(attempt: Int) -> SharedExchangeTask {
            let core = session.makeDataRequest(TestForm(url: "http://127.0.0.1/a")).core
            let task = SharedExchangeTask(
                events: AttemptEvents(core: core, attempt: attempt), sending: request, report: nil)
            task.attach(coalescer.enter(key, as: task, deliversAtCompletion: false) { _ in base })
            return task
        }
        let leader = shared(attempt: 1)
        let follower = shared(attempt: 2)
        leader.cancel()
        #expect(base.counts.current == .init(resumes: 1, cancels: 0))
        follower.cancel()
        #expect(base.counts.current == .init(resumes: 1, cancels: 1))
    }

    @Test("A leader cancelled before it started, with nobody else, cancels the exchange unstarted")
    func lastLeaderLeavingUnstartedCancels() throws {
        let coalescer = Coalescer()
        let key = try key()
        let base = CountingTask()
        let core = session.makeDataRequest(TestForm(url: "http://127.0.0.1/a")).core
        let leader = SharedExchangeTask(
            events: AttemptEvents(core: core, attempt: 1),
            sending: URLRequest(url: URL(fileURLWithPath: "/")),
            report: nil)
        leader.attach(coalescer.enter(key, as: leader, deliversAtCompletion: false) { _ in base })
        leader.cancel()
        #expect(base.counts.current == .init(resumes: 0, cancels: 1))
    }
}

extension CoalescerTests {
    @Test(
        "The task is made outside the table's lock: an identical request entering meanwhile joins the flight")
    func taskMadeOutsideTheLock() throws {
        let coalescer = Coalescer()
        let key = try key()
        let base = CountingTask()
        let joined = Protected<Coalescer.Entry?>(nil)
        let second = subscriber(attempt: 2)
        let lead = coalescer.enter(key, as: subscriber(attempt: 1), deliversAtCompletion: false) { _ in
            // Another thread enters while the leader's task is being made. Under the table's lock
            // it would wait until this returns, and the wait would run out.
            returnsOnAnotherThread("an identical request enters while the task is made") {
                let entry = coalescer.enter(key, as: second, deliversAtCompletion: false) { _ in IdleTask() }
                joined.withLock { $0 = entry }
            }
            return base
        }
        let leader = try #require(flight(lead, leads: true))
        #expect(leader.task === base)
        let follower = try #require(joined.current.flatMap { flight($0, leads: false) })
        #expect(follower === leader)
        #expect(leader.subscriberCount == 2)
    }
}

/// A transport task that counts how often it is resumed and cancelled.
private final class CountingTask: TransportTask {
    struct Counts: Equatable {
        var resumes = 0
        var cancels = 0
    }
    let counts = Protected(Counts())
    func resume() { counts.withLock { $0.resumes += 1 } }
    func cancel() { counts.withLock { $0.cancels += 1 } }
}

/// A transport task that is never resumed: the table's rules need only its identity.
private final class IdleTask: TransportTask {
    func resume() {}
    func cancel() {}
}
