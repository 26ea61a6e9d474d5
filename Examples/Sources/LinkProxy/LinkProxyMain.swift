import ExampleSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A user-space TCP proxy that makes loopback behave like a real link (`tc netem` is missing on
/// these machines): it listens on 127.0.0.1, forwards every connection to a server, and in each
/// direction delays every chunk by half the round-trip time and paces it at the link's rate, so a
/// download of `S` bytes in one request takes about `S / rate + rtt` (plus one round trip for a new
/// connection's handshake).
///
///     LinkProxy --target http://127.0.0.1:8080 --link rtt=40ms,rate=400mbit [--port 0] [--exit-on-stdin-eof]
///
/// It prints `Formwork link proxy listening on http://127.0.0.1:PORT` once it listens.
@main
enum LinkProxyMain {
    static let usage = """
        usage: LinkProxy --target http://127.0.0.1:PORT --link rtt=40ms,rate=400mbit [--port P] [--exit-on-stdin-eof]
        """

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        func value(_ flag: String) -> String? {
            guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
        guard let targetText = value("--target"), let linkText = value("--link"),
            let target = URLComponents(string: targetText), target.host == "127.0.0.1",
            let targetPort = target.port.flatMap(UInt16.init(exactly:))
        else {
            fail("LinkProxy: --target http://127.0.0.1:PORT and --link are required\n\(usage)")
        }
        let link: LinkSpec
        do {
            link = try LinkSpec(parsing: linkText)
        } catch {
            fail("LinkProxy: \(error)\n\(usage)")
        }
        let port = value("--port").flatMap(UInt16.init) ?? 0
        signal(SIGPIPE, SIG_IGN)  // a peer that goes away is a failed write, not the end of the proxy
        if arguments.contains("--exit-on-stdin-eof") {
            let watcher = Thread {
                while !FileHandle.standardInput.availableData.isEmpty {}
                exit(0)
            }
            watcher.start()
        }
        do {
            let listener = try Socket.listening(port: port)
            let line = "\(LinkProxyAnnouncement.prefix)http://127.0.0.1:\(try Socket.localPort(listener))\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            while true {
                let client = try Socket.nextConnection(listener)
                let accepted = Monotonic.now()
                do {
                    let server = try Socket.connection(port: targetPort)
                    ProxiedConnection(client: client, server: server, link: link, accepted: accepted).start()
                } catch {
                    close(client)
                    FileHandle.standardError.write(Data("LinkProxy: \(error)\n".utf8))
                }
            }
        } catch {
            fail("LinkProxy: \(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
