import DemoServerCore

/// Entry point of the demo server with HTTPS listeners (`--tls-port`, `--tls-cert`, `--tls-key`),
/// for the HTTPS suites: the same server as `DemoServer`, plus TLS on swift-nio-ssl.
@main
enum DemoServerTLSMain {
    static func main() async {
        await DemoServerProgram.run(name: "DemoServerTLS", tls: .nioSSL)
    }
}
