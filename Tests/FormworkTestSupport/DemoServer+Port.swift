import Foundation

extension DemoServer {
    /// Starts a demo server of the caller's own on `port` (found with ``UnusedPort/find()``), apart
    /// from the shared one: for a test that needs requests refused first and answered later on the
    /// same address, or a server whose counters only it touches. The executable is found as for
    /// the shared server (``DemoServerExecutable``).
    /// - Parameter port: The loopback port to listen on.
    /// - Returns: The running server; call ``PrivateDemoServer/stop()`` when done (it also ends
    ///   with the test process).
    /// - Throws: ``DemoServerError`` when it cannot be started, e.g. the port is taken.
    public static func start(port: Int) async throws -> PrivateDemoServer {
        let running = try await DemoServerLauncher.launch(
            .plain, extraArguments: [], listeners: 1, port: port)
        return PrivateDemoServer(running)
    }
}

/// A demo server started by ``DemoServer/start(port:)``, stopped by ``stop()``.
public struct PrivateDemoServer: Sendable {
    /// e.g. "http://127.0.0.1:54321" (no trailing slash).
    public let baseURL: String
    private let running: RunningServer

    init(_ running: RunningServer) {
        self.running = running
        baseURL = running.baseURLs[0]
    }

    /// Ends the server (SIGKILL) and waits until it has exited; calling it again does nothing.
    public func stop() {
        let process = running.process
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
