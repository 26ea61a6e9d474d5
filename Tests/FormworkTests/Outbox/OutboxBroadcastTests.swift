import Foundation
import Testing

@testable import Formwork

@Suite("Outbox broadcast")
struct OutboxBroadcastTests {
    @Test("Values sent while nobody listens are kept for the first listener, and only once")
    func keepsUnheard() async {
        let broadcast = OutboxBroadcast<Int>(keepsUnheard: 10)
        broadcast.send(1)
        broadcast.send(2)
        var first = broadcast.subscribe().makeAsyncIterator()
        var second = broadcast.subscribe().makeAsyncIterator()
        broadcast.send(3)
        broadcast.finish()
        var firstSeen: [Int] = []
        while let value = await first.next() { firstSeen.append(value) }
        var secondSeen: [Int] = []
        while let value = await second.next() { secondSeen.append(value) }
        #expect(firstSeen == [1, 2, 3])
        #expect(secondSeen == [3])
    }

    @Test("A listener that does not take the kept values (a bound model) leaves them to the app's own")
    func modelDoesNotTakeUnheard() async {
        let broadcast = OutboxBroadcast<Int>(keepsUnheard: 10)
        var model = broadcast.subscribe(takesUnheard: false).makeAsyncIterator()
        broadcast.send(1)
        var app = broadcast.subscribe().makeAsyncIterator()
        broadcast.send(2)
        broadcast.finish()
        var appSeen: [Int] = []
        while let value = await app.next() { appSeen.append(value) }
        var modelSeen: [Int] = []
        while let value = await model.next() { modelSeen.append(value) }
        #expect(appSeen == [1, 2])
        #expect(modelSeen == [1, 2])
    }

    @Test("The kept values are bounded: the oldest go first")
    func bounded() async {
        let broadcast = OutboxBroadcast<Int>(keepsUnheard: 2)
        for value in 1...5 { broadcast.send(value) }
        var listener = broadcast.subscribe().makeAsyncIterator()
        broadcast.finish()
        var seen: [Int] = []
        while let value = await listener.next() { seen.append(value) }
        #expect(seen == [4, 5])
    }

    @Test("A status broadcast gives a new listener the latest value, even after it finished")
    func replaysLatest() async {
        let broadcast = OutboxBroadcast<Int>(keepsUnheard: 1, replaysLatest: true)
        broadcast.send(1)
        broadcast.send(2)
        var early = broadcast.subscribe().makeAsyncIterator()
        #expect(await early.next() == 2)
        broadcast.send(3)
        #expect(await early.next() == 3)
        broadcast.finish()
        var late = broadcast.subscribe().makeAsyncIterator()
        #expect(await late.next() == 3)
        #expect(await late.next() == nil)
    }
}
