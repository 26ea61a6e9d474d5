import NIOCore
import NIOPosix
import Testing

@testable import FormworkAsyncHTTPClient

/// Which event loop each hop prefers: the last hop's when it runs alone, the next of the group
/// when others run.
@Suite("AsyncHTTPClient transport: loop choice")
struct LoopChooserTests {
    @Test("A hop that runs alone takes the loop of the hop before it")
    func aloneKeepsTheLastLoop() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let chooser = LoopChooser(group: group)
        let first = chooser.take()
        chooser.giveBack(first)
        for _ in 0..<5 {
            let next = chooser.take()
            #expect(next === first)
            chooser.giveBack(next)
        }
    }

    @Test("Hops that run together spread over the group's loops")
    func togetherSpread() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        defer { try? group.syncShutdownGracefully() }
        let chooser = LoopChooser(group: group)
        let first = chooser.take()
        let second = chooser.take()
        #expect(first !== second)
        chooser.giveBack(first)
        chooser.giveBack(second)
        // The last one given back is the one a lone hop takes next.
        let alone = chooser.take()
        #expect(alone === second)
        chooser.giveBack(alone)
    }
}
