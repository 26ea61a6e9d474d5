import Foundation
import NIOCore

/// Entry point: parse options, bind, print the "listening on" line, serve until killed.
@main
enum DemoServerMain {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("\(error.description)\n\(Options.usage)")
            exit(2)
        }
        if options.exitOnStdinEOF {
            exitWhenStdinCloses()
        }
        do {
            // Bad certificate files fail before anything listens.
            let contexts = try options.tlsListeners.map { try (port: $0.port, context: TLS.context(for: $0)) }
            let stats = ServerStats()
            let channel = try await Server.start(
                host: options.host, port: options.port, router: .demo, stats: stats)
            try announce(channel, scheme: "http", options: options)
            // HTTPS listeners, announced after the plain one (harnesses read the plain line first).
            for (port, context) in contexts {
                let tlsChannel = try await Server.start(
                    host: options.host, port: port, router: .demo, stats: stats, tls: context)
                try announce(tlsChannel, scheme: "https", options: options, note: " (TLS)")
            }
            try await channel.closeFuture.get()
        } catch {
            printError("DemoServer: \(error)")
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
