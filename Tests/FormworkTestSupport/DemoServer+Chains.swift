import Foundation

extension DemoServer {
    /// A `DemoServerTLS` process whose TLS listeners serve the chains of a fresh ``TestChains``,
    /// started on first call (one per test process; separate from ``tls()``).
    /// - Returns: Its URLs and chains.
    /// - Throws: ``DemoServerError`` when the chains cannot be made or the server cannot start.
    public static func chains() async throws -> ChainDemoServer {
        try await ChainServerLauncher.shared.server()
    }
}

/// The demo server serving the chains of ``chains``: one plain listener and one TLS listener per
/// chain, all with the same endpoints as ``DemoServer/baseURL()``. Every leaf is for `127.0.0.1`
/// and `localhost`.
public struct ChainDemoServer: Sendable {
    /// The chains.
    public let chains: TestChains
    /// The same process over plain HTTP, e.g. "http://127.0.0.1:54321" (for `/cache/stats`).
    public let plainBaseURL: String
    /// TLS with the leaf, then the intermediate.
    public let leafBaseURL: String
    /// TLS with the rotated leaf (a new key from the same intermediate), then the intermediate.
    public let rotatedBaseURL: String
    /// TLS with the foreign leaf, then the foreign root.
    public let foreignBaseURL: String
    /// TLS with the expired leaf, then the intermediate.
    public let expiredBaseURL: String
    /// TLS with the leaf and the intermediate, requiring a client certificate signed by the root.
    public let mutualTLSBaseURL: String
}

/// Starts the chain server once per process; concurrent callers share the start.
actor ChainServerLauncher {
    static let shared = ChainServerLauncher()

    private var start: Task<(RunningServer, ChainDemoServer), any Error>?

    func server() async throws -> ChainDemoServer {
        let task =
            start
            ?? Task {
                let chains = try await TestChains.make()
                let key = { (certificate: TestChains.Certificate) in certificate.key.path }
                let listeners: [(chain: [TestChains.Certificate], key: String, clientCA: Bool)] = [
                    ([chains.leaf, chains.intermediate], key(chains.leaf), false),
                    ([chains.rotatedLeaf, chains.intermediate], key(chains.rotatedLeaf), false),
                    ([chains.foreignLeaf, chains.foreignRoot], key(chains.foreignLeaf), false),
                    ([chains.expiredLeaf, chains.intermediate], key(chains.expiredLeaf), false),
                    ([chains.leaf, chains.intermediate], key(chains.leaf), true),
                ]
                var arguments: [String] = []
                for listener in listeners {
                    arguments += [
                        "--tls-port", "0", "--tls-cert", try chains.chainFile(listener.chain).path,
                        "--tls-key",
                        listener.key,
                    ]
                    if listener.clientCA { arguments += ["--tls-client-ca", chains.root.pem.path] }
                }
                let running = try await DemoServerLauncher.launch(
                    .tls, extraArguments: arguments, listeners: 1 + listeners.count)
                let urls = running.baseURLs
                guard urls.count == 1 + listeners.count else {
                    throw DemoServerError(
                        description: "DemoServer: expected \(1 + listeners.count) listeners")
                }
                return (
                    running,
                    ChainDemoServer(
                        chains: chains, plainBaseURL: urls[0], leafBaseURL: urls[1], rotatedBaseURL: urls[2],
                        foreignBaseURL: urls[3], expiredBaseURL: urls[4], mutualTLSBaseURL: urls[5])
                )
            }
        start = task
        return try await task.value.1
    }
}
