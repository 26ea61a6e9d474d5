import Foundation
import NIOCore

/// The demo server's program, shared by its two executables: parse options, bind, print the
/// "listening on" lines, serve until killed. `DemoServer` runs it without TLS (it links no TLS
/// library, so the demo builds quickly); `DemoServerTLS` runs it with swift-nio-ssl for the
/// HTTPS listeners (`--tls-port`) that the HTTPS suites test against.
public enum DemoServerProgram {
    /// Runs the server with this process's command line; returns only by exiting the process.
    /// - Parameters:
    ///   - name: The executable's name, for the usage line and error messages.
    ///   - tls: How to speak TLS; without it the `--tls-*` options are refused.
    public static func run(name: String, tls: TLSSupport?) async -> Never {
        let options: Options
        do {
            options = try Options.parse(
                Array(CommandLine.arguments.dropFirst()), name: name, allowsTLS: tls != nil)
        } catch {
            let usage = Options.usage(name: name, tls: tls != nil)
            printError(error.description == usage ? usage : "\(error.description)\n\(usage)")
            exit(2)
        }
        if options.exitOnStdinEOF {
            exitWhenStdinCloses()
        }
        do {
            // Bad certificate files fail before anything listens.
            let listeners = try options.tlsListeners.map { listener in
                guard let tls else { throw Options.UsageError(description: Options.withoutTLS) }
                return (port: listener.port, setup: try tls.connectionSetup(for: listener))
            }
            let stats = ServerStats()
            let channel = try await Server.start(
                host: options.host, port: options.port, router: .demo, stats: stats)
            try announce(channel, scheme: "http", options: options)
            // HTTPS listeners, announced after the plain one (harnesses read the plain line first).
            for (port, setup) in listeners {
                let tlsChannel = try await Server.start(
                    host: options.host, port: port, router: .demo, stats: stats, tls: setup)
                try announce(tlsChannel, scheme: "https", options: options, note: " (TLS)")
            }
            try await channel.closeFuture.get()
            exit(0)
        } catch {
            printError("\(name): \(error)")
            exit(1)
        }
    }

    /// Prints `Formwork demo server listening on SCHEME://HOST:PORT` for a bound channel.
    static func announce(_ channel: any Channel, scheme: String, options: Options, note: String = "") throws {
        guard let port = channel.localAddress?.port else {
            throw Options.UsageError(description: "the listening socket has no port")
        }
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        let line = "Formwork demo server listening on \(scheme)://\(host):\(port)\(note)\n"
        FileHandle.standardOutput.write(Data(line.utf8))  // unbuffered: the parent reads it at once
    }

    /// Reads standard input on a background thread and exits the process at end of file.
    static func exitWhenStdinCloses() {
        let thread = Thread {
            while !FileHandle.standardInput.availableData.isEmpty {}
            exit(0)
        }
        thread.name = "stdin-eof-watcher"
        thread.start()
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
