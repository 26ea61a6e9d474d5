import Foundation

/// Starts the `LinkProxy` executable built next to the running one in front of a server, so that
/// requests to `baseURL` cross a simulated link; it stops when this process no longer holds it.
///
/// The proxy runs in its own process so that its threads and buffers count neither toward the
/// caller's CPU time per request nor toward its peak RSS.
public final class LinkProxyProcess: Sendable {
    /// The proxy's base URL, e.g. `http://127.0.0.1:54322`.
    public let baseURL: String
    /// The link it simulates.
    public let link: LinkSpec
    private let process: Process
    private let stdin: FileHandle

    /// Launches the proxy and waits (up to 30 s) for its "listening on" line.
    /// - Parameters:
    ///   - target: The server to forward to, `http://127.0.0.1:PORT`.
    ///   - link: The link to simulate.
    /// - Throws: `DemoServerProcess.Failure` when the proxy is not built or does not start.
    public init(target: String, link: LinkSpec) throws {
        let child = try ChildProcess(
            executable: "LinkProxy",
            arguments: [
                "--target", target, "--link", link.description, "--port", "0", "--exit-on-stdin-eof",
            ],
            announcement: LinkProxyAnnouncement.prefix)
        self.baseURL = child.announced
        self.link = link
        self.process = child.process
        self.stdin = child.stdin
    }

    deinit {
        try? stdin.close()
        process.waitUntilExit()
    }
}

/// The line `LinkProxy` prints once it listens, followed by its base URL.
public enum LinkProxyAnnouncement {
    /// `Formwork link proxy listening on `.
    public static let prefix = "Formwork link proxy listening on "
}
