/// Command-line options: `DemoServer [--host 127.0.0.1] [--port 0] [--exit-on-stdin-eof]`, plus
/// HTTPS listeners in `DemoServerTLS` (see `Options+TLS.swift`).
struct Options: Sendable {
    var host = "127.0.0.1"
    /// 0 lets the operating system choose a free port.
    var port = 0
    /// Exit when standard input reaches end of file (so the server dies with its parent).
    var exitOnStdinEOF = false
    /// HTTPS listeners besides the plain one, in the order given.
    var tlsListeners: [TLSListener] = []

    /// The usage line of the executable `name`, with the HTTPS options if it has `tls`.
    static func usage(name: String, tls: Bool) -> String {
        let plain = "usage: \(name) [--host 127.0.0.1] [--port 0] [--exit-on-stdin-eof]"
        return tls ? plain + " [--tls-port 0 --tls-cert PEM --tls-key PEM [--tls-client-ca PEM]]..." : plain
    }

    /// Why a `--tls-*` option is refused by the executable without TLS.
    static let withoutTLS = "the --tls-* options need DemoServerTLS (DemoServer is built without TLS)"

    /// The hosts the demo server may bind to: loopback only.
    static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "::1"]

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the name of the executable `name`; `--tls-*` only if `allowsTLS`.
    static func parse(_ arguments: [String], name: String, allowsTLS: Bool) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--host":
                guard let host = remaining.popFirst() else {
                    throw UsageError(description: "--host needs a value")
                }
                guard loopbackHosts.contains(host) || host.hasPrefix("127.") else {
                    throw UsageError(description: "--host must be a loopback address, not \(host)")
                }
                options.host = host
            case "--port":
                guard let text = remaining.popFirst(), let port = Int(text), (0...65535).contains(port) else {
                    throw UsageError(description: "--port needs a number from 0 to 65535")
                }
                options.port = port
            case "--exit-on-stdin-eof":
                options.exitOnStdinEOF = true
            case "--tls-port", "--tls-cert", "--tls-key", "--tls-client-ca":
                guard allowsTLS else { throw UsageError(description: withoutTLS) }
                try options.parseTLSOption(argument, value: remaining.popFirst())
            case "-h", "--help":
                throw UsageError(description: usage(name: name, tls: allowsTLS))
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
        try options.checkTLSListeners()
        return options
    }
}
