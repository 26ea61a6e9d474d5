import Foundation

/// Serves ``StubRegistry`` responses to URLSession (installed through `protocolClasses`).
final class StubURLProtocol: URLProtocol {
    /// The header a stubbed session uses to name its registry.
    static let registryHeader = "X-Formwork-Stub-Registry"

    private static let registries = Protected([String: WeakRegistry]())

    private struct WeakRegistry: Sendable {
        weak var registry: StubRegistry?
    }

    static func register(_ registry: StubRegistry) {
        registries.withLock { $0[registry.id] = WeakRegistry(registry: registry) }
    }

    static func unregister(_ id: String) {
        _ = registries.withLock { $0.removeValue(forKey: id) }
    }

    private let stopped = Protected(false)

    override class func canInit(with request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: registryHeader) != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Told, for tests, the thread that ran `startLoading` for a request and the thread its client
    /// calls run on.
    static let clientCallObserver = Protected<
        (@Sendable (_ request: URLRequest, _ started: Thread, _ called: Thread) -> Void)?
    >(nil)

    /// Answers the request. The client is called on the thread that runs `startLoading`, as Apple
    /// requires: at once when the stub has no delay, else from a timer on that thread's run loop.
    /// corelibs (Linux) calls `startLoading` on a dispatch queue whose thread runs no run loop
    /// (and accepts client calls from any thread): there a delayed answer comes from a timer on a
    /// global queue, since blocking that queue would stall the whole session.
    override func startLoading() {
        let request = self.request
        let id = request.value(forHTTPHeaderField: Self.registryHeader) ?? ""
        let registry = Self.registries.withLock { $0[id]?.registry }
        let stub =
            registry?.response(for: request)
            ?? .failure(.resourceUnavailable)
        let delivery = Delivery(protocolInstance: self, thread: Thread.current)
        guard stub.delay > 0 else {
            delivery.deliver(stub, for: request)
            return
        }
        let runLoop = RunLoop.current
        if runLoop.currentMode != nil {
            let timer = Timer(timeInterval: stub.delay, repeats: false) { _ in
                delivery.deliver(stub, for: request)
            }
            runLoop.add(timer, forMode: .common)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + stub.delay) {
            delivery.deliver(stub, for: request)
        }
    }

    override func stopLoading() {
        stopped.withLock { $0 = true }
    }

    /// Hands a stub's response to the protocol's client, unless loading was stopped.
    private struct Delivery: @unchecked Sendable {  // holds a URLProtocol, whose own state is locked
        let protocolInstance: StubURLProtocol
        /// The thread that ran `startLoading`.
        let thread: Thread

        func deliver(_ stub: StubResponse, for request: URLRequest) {
            let loader = protocolInstance
            guard !loader.stopped.current, let client = loader.client else { return }
            // Every client call below happens on this thread, in this one synchronous pass.
            StubURLProtocol.clientCallObserver.current?(request, thread, Thread.current)
            if let error = stub.error {
                client.urlProtocol(loader, didFailWithError: error)
                return
            }
            guard let url = request.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: stub.statusCode, httpVersion: "HTTP/1.1",
                    headerFields: stub.headers.merging(["Content-Length": String(stub.body.count)]) {
                        mine, _ in mine
                    })
            else {
                client.urlProtocol(loader, didFailWithError: URLError(.badServerResponse))
                return
            }
            client.urlProtocol(loader, didReceive: response, cacheStoragePolicy: .notAllowed)
            let size = max(1, stub.chunkSize ?? max(stub.body.count, 1))
            var offset = stub.body.startIndex
            while offset < stub.body.endIndex {
                let end =
                    stub.body.index(offset, offsetBy: size, limitedBy: stub.body.endIndex)
                    ?? stub.body.endIndex
                client.urlProtocol(loader, didLoad: stub.body.subdata(in: offset..<end))
                offset = end
            }
            client.urlProtocolDidFinishLoading(loader)
        }
    }
}
