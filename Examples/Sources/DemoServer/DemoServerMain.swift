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
            let channel = try await Server.start(
                host: options.host, port: options.port, router: .demo, stats: ServerStats())
            guard let port = channel.localAddress?.port else {
                printError("DemoServer: the listening socket has no port")
                exit(1)
            }
            let host = options.host.contains(":") ? "[\(options.host)]" : options.host
            let line = "Formwork demo server listening on http://\(host):\(port)\n"
            FileHandle.standardOutput.write(Data(line.utf8))  // unbuffered: the parent reads it at once
            try await channel.closeFuture.get()
        } catch {
            printError("DemoServer: \(error)")
            exit(1)
        }
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
