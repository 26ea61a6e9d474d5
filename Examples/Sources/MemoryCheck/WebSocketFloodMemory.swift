import ExampleSupport
import Formwork
import FormworkWebSocketNIO
import Foundation

/// `MemoryCheck websocket-flood [--messages N] [--size B] [--pause-after K] [--pause S] [--limit-mib MIB]`:
/// reads N WebSocket text messages of B bytes each (default 100,000 of 1 KiB: 100 MB) that the
/// demo server pushes as fast as the socket drains, over `NIOWebSocketTransport`, with a reader that
/// stops for S seconds after K messages (default 2 s after 1,000). Every message must arrive, in
/// order, and the peak RSS must grow less than the limit (default 32 MiB) over the process before
/// the socket: the socket stops reading while its reader is a buffer behind.
enum WebSocketFloodMemory {
    private struct PushForm: WebSocketFormable {
        let url: String
    }

    static func run(_ arguments: [String]) async {
        func number(_ name: String, _ fallback: Int) -> Int {
            MemoryCheck.value(after: name, in: arguments).flatMap(Int.init) ?? fallback
        }
        let (messages, size) = (number("--messages", 100_000), number("--size", 1024))
        let pauseAfter = number("--pause-after", 1_000)
        let pause = MemoryCheck.value(after: "--pause", in: arguments).flatMap(Double.init) ?? 2
        let limit = Int64(number("--limit-mib", 32)) << 20
        guard messages >= 1, size >= 16 else {
            print(
                "usage: MemoryCheck websocket-flood [--messages N] [--size B ≥ 16] [--pause-after K] [--pause S] "
                    + "[--limit-mib MIB]")
            exit(2)
        }
        do {
            let server = try DemoServerProcess()
            let session = Session { $0.webSocketTransport = NIOWebSocketTransport() }
            let url =
                server.baseURL.replacingOccurrences(of: "http://", with: "ws://")
                + "/ws/push?count=\(messages)&size=\(size)"
            let baseline = peakResidentBytes()
            let started = Date()
            var received = 0
            for try await message in session.webSocket(PushForm(url: url)).messages() {
                guard case .text(let text) = message, text.hasPrefix("\(received)."), text.utf8.count == size
                else {
                    print("MemoryCheck FAIL: message \(received) was not the one expected")
                    exit(1)
                }
                received += 1
                if received == pauseAfter { try await Task.sleep(nanoseconds: UInt64(pause * 1e9)) }
            }
            withExtendedLifetime(server) {}
            let elapsed = Date().timeIntervalSince(started)
            let growth = peakResidentBytes() - baseline
            print(
                "MemoryCheck websocket-flood: \(received) of \(messages) messages of \(size) B in "
                    + "\(String(format: "%.1f", elapsed)) s (a \(pause) s pause after \(pauseAfter)); peak RSS "
                    + "\(formatBytes(peakResidentBytes())), growth \(formatBytes(growth)); limit "
                    + "\(formatBytes(limit)) growth")
            guard received == messages else {
                print("MemoryCheck FAIL: \(received) of \(messages) messages arrived")
                exit(1)
            }
            guard growth < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(growth)), over the limit")
                exit(1)
            }
            print("MemoryCheck websocket-flood OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }
}
