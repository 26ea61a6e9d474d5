import NIOCore
import NIOHTTP1

/// Failed uploads, for clients that must send a body again: with `?failKey=K&failures=N` the
/// first N uploads to `/upload` under key K are read and hashed whole, then answered with
/// `503` and the usual description (`fail=503`, the default), or with a response cut short
/// (`fail=cut`: 10 bytes of an announced 1000, then the connection closes). Later uploads under
/// K are answered as usual. `/fault/count?key=K` tells how many arrived.
enum UploadFaults {
    /// The failure for this upload, or nil when it is to be answered as usual.
    static func failure(for request: DemoRequest, describedAs description: JSON) -> DemoResponse? {
        guard let key = request.queryValue("failKey") else { return nil }
        let failures = Int(request.queryValue("failures") ?? "1") ?? 1
        guard FaultRoutes.count(key) <= failures else { return nil }
        guard request.queryValue("fail") == "cut" else {
            return .json(description, status: .serviceUnavailable)
        }
        let stream = StreamedBody(
            contentLength: 1000, bytesToSend: 10, closesEarly: true, bytesPerSecond: nil,
            fill: { buffer, _ in _ = buffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: " ")) },
            onSent: { _ in })
        return DemoResponse(status: .ok, headers: ["Content-Type": "application/json"], stream: stream)
    }
}
