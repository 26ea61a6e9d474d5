import Foundation

/// A session's table of coalescable network requests in flight, by ``CoalescingKey``: an
/// identical request made while one of them is open shares its task instead of sending its own.
///
/// One lock guards the table; nothing waits under it, and no other layer or transport is called
/// under it. Lock order: this table's, then a ``Flight``'s (a flight calls back into the table
/// only after releasing its own lock).
final class Coalescer: Sendable {
    private let flights = Protected([CoalescingKey: Flight]())

    /// What a request's attempt does about its task.
    enum Entry: Sendable {
        /// It started the network request: resume `flight.task`.
        case lead(Flight)
        /// It shares a network request already made: never resume or own the task.
        case follow(Flight)
    }

    /// Joins the open flight for `key`, or lists a new one and then makes its task with
    /// `makeTask`. The flight is listed under the table's lock, so an identical request made
    /// meanwhile joins it; the task is made after the lock is released (`makeTask` calls into the
    /// transport below), and set before this returns, so the leader resumes or cancels a flight
    /// that has its task.
    /// - Parameters:
    ///   - key: The final request's key.
    ///   - subscriber: The attempt that wants the response.
    ///   - leaderID: Its id, if monitors need it.
    ///   - deliversAtCompletion: Whether a task made here delivers at completion; an attempt
    ///     that needs the delegate's events passes `false` and never joins one that does.
    ///   - makeTask: Creates the (not resumed) task of a new flight, given the flight (for the
    ///     task's events, which go to every request sharing it).
    /// - Returns: Whether the attempt leads or follows, and the flight.
    func enter(
        _ key: CoalescingKey, as subscriber: Flight.Subscriber, leaderID: UUID? = nil,
        deliversAtCompletion: Bool,
        makeTask: (_ flight: @escaping @Sendable () -> Flight?) -> any TransportTask
    ) -> Entry {
        // The task's events need the flight, which needs the task: a box ties them, until the
        // flight is over (its task ended, or no request wants it any more) and empties the box.
        // Without that the flight, its task and the task's URLSession task kept each other alive
        // for good, and the URLSession with them.
        let box = Protected<Flight?>(nil)
        let entry = flights.withLock { flights -> Entry in
            if let open = flights[key], open.join(subscriber, needsEvents: !deliversAtCompletion) {
                return .follow(open)
            }
            let flight = Flight(
                key: key, deliversAtCompletion: deliversAtCompletion, leader: subscriber,
                leaderID: leaderID, onClose: { [weak self] closed in self?.forget(closed) },
                onEnd: { box.withLock { $0 = nil } })
            flights[key] = flight
            return .lead(flight)
        }
        if case .lead(let flight) = entry {
            box.withLock { $0 = flight }
            flight.attach(makeTask { box.current })
        }
        return entry
    }

    /// Drops `flight` from the table (it closed to newcomers), unless a newer flight took its key.
    private func forget(_ flight: Flight) {
        flights.withLock { flights in
            if flights[flight.key] === flight { flights[flight.key] = nil }
        }
    }

    /// How many requests share open flights to `url` (for tests: wait until callers joined).
    func subscriberCount(url: URL) -> Int {
        let open = flights.withLock { flights in flights.values.filter { $0.key.url == url.absoluteString } }
        return open.reduce(0) { $0 + $1.subscriberCount }
    }

    /// How many flights are open (for tests: none may outlive its requests).
    var openFlightCount: Int { flights.withLock { $0.count } }
}
