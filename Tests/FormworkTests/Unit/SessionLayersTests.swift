import Foundation
import Testing

@testable import Formwork

/// A session puts around its transport only the feature layers it uses.
@Suite("Session layers")
struct SessionLayersTests {
    /// A monitor that listens to nothing.
    private struct QuietMonitor: EventMonitor {}

    @Test("With coalescing off and no cache nor monitor, requests go to the transport itself")
    func noLayers() {
        let session = Session { $0.coalescesRequests = false }
        let layered = session.layeredTransport
        #expect(type(of: layered) == type(of: session.transport))
        #expect(!(layered is CoalescingTransport))
    }

    @Test("Coalescing, the default, is the one layer of a session without a cache")
    func coalescingLayer() {
        #expect(Session().layeredTransport is CoalescingTransport)
    }

    @Test("With coalescing off, event monitors get a layer that only reports each start")
    func startReportingLayer() {
        let session = Session {
            $0.coalescesRequests = false
            $0.interceptors.eventMonitors = [QuietMonitor()]
        }
        #expect(session.layeredTransport is StartReportingTransport)
    }

    @Test("A cache is the outer layer")
    func cacheLayer() {
        let session = Session { $0.cache = HTTPCache() }
        #expect(session.layeredTransport is CachingTransport)
    }

    @Test("Requests that choose the transport at once all get the one the session keeps")
    func transportChosenOnce() async throws {
        let session = Session()
        let chosen = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<8 {
                group.addTask { session.urlSessionTransport.map(ObjectIdentifier.init) }
            }
            return await group.reduce(into: Set<ObjectIdentifier?>()) { $0.insert($1) }
        }
        let kept = try #require(session.urlSessionTransport)
        #expect(chosen == [ObjectIdentifier(kept)])
    }
}
