import DemoServerCore

/// Entry point of the plain HTTP demo server that the demo, the benchmark, MemoryCheck and the
/// integration tests start. It links no TLS library; `DemoServerTLS` adds the HTTPS listeners.
@main
enum DemoServerMain {
    static func main() async {
        await DemoServerProgram.run(name: "DemoServer", tls: nil)
    }
}
