// libFuzzer target: the event-stream parser and the line splitter must never crash, and the events
// and lines they yield must not depend on how the bytes are cut into chunks. Build and run: see
// CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks the chunk size; the rest is the stream.
    let step = Int(data[0] % 16) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    var whole = EventStreamParser()
    let expected = whole.feed(bytes)
    var chunked = EventStreamParser()
    var events: [ServerSentEvent] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        events += chunked.feed(bytes[start..<end])
        start = end
    }
    guard events == expected, chunked.lastEventID == whole.lastEventID, chunked.retry == whole.retry else {
        fatalError("chunks of \(step) bytes changed the events of \(bytes)")
    }
    for event in events where event.id.unicodeScalars.contains("\0") || event.type.isEmpty {
        fatalError("dispatched an event with a NUL in its id or an empty type: \(event)")
    }

    var wholeLines = LineSplitter()
    var expectedLines: [[UInt8]] = []
    wholeLines.feed(bytes) { line, _ in expectedLines.append(line) }
    var chunkedLines = LineSplitter()
    var lines: [[UInt8]] = []
    start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        chunkedLines.feed(bytes[start..<end]) { line, _ in lines.append(line) }
        start = end
    }
    guard lines == expectedLines, chunkedLines.finish()?.bytes == wholeLines.finish()?.bytes else {
        fatalError("chunks of \(step) bytes changed the lines of \(bytes)")
    }
    for line in lines where line.contains(13) || line.contains(10) {
        fatalError("a line holds CR or LF: \(line)")
    }
    return 0
}
