import Formwork
import Foundation
import Testing

// Only the public API (no `@testable`): what an app that has the bytes from elsewhere can write.

/// What a parser made of some bytes: its events and what it knows afterwards.
private struct Parsed: Equatable {
    var events: [ServerSentEvent] = []
    var lastEventID = ""
    var reconnectionTime: TimeInterval?

    /// Feeds `chunks` one after the other to a new parser.
    init(chunks: [ArraySlice<UInt8>]) {
        var parser = EventStreamParser()
        for chunk in chunks { events += parser.feed(chunk) }
        lastEventID = parser.lastEventID
        reconnectionTime = parser.reconnectionTime
    }
}

@Suite("EventStreamParser, the public parser: bytes in any chunks, events out")
struct EventStreamParserPublicTests {
    /// A BOM, mixed line ends, a comment, `retry:` and `id:` blocks without data, multi-byte UTF-8.
    static let sample: [UInt8] =
        [0xEF, 0xBB, 0xBF]
        + Array(
            (": hi\r\nretry: 1500\n\nid: 1\ndata: é one\r\rid: 2\n\nevent: tick\ndata: two\ndata:\r\n\r\n"
                + "retry: 250\nid: 3\n\ndata: three\n\ndata: cut").utf8)

    static let expected = [
        ServerSentEvent(data: "é one", id: "1"), ServerSentEvent(type: "tick", data: "two\n", id: "2"),
        ServerSentEvent(data: "three", id: "3"),
    ]

    @Test("Cutting the bytes at every boundary, into two or three chunks or single bytes, changes nothing")
    func everyBoundary() {
        let bytes = Self.sample
        let whole = Parsed(chunks: [bytes[...]])
        #expect(whole.events == Self.expected)
        #expect(whole.lastEventID == "3")
        #expect(whole.reconnectionTime == 0.25)
        for cut in 0...bytes.count {
            #expect(Parsed(chunks: [bytes[..<cut], bytes[cut...]]) == whole, "cut at \(cut)")
        }
        for first in 0...bytes.count {
            for second in first...bytes.count {
                let chunks = [bytes[..<first], bytes[first..<second], bytes[second...]]
                #expect(Parsed(chunks: chunks) == whole, "cuts at \(first) and \(second)")
            }
        }
        #expect(Parsed(chunks: bytes.indices.map { bytes[$0...$0] }) == whole)
    }

    @Test("A leading BOM is skipped, also when cut; a BOM later on is data of the field name")
    func byteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let event = Array("data: x\n\n".utf8)
        #expect(Parsed(chunks: [(bom + event)[...]]).events == [ServerSentEvent(data: "x")])
        #expect(Parsed(chunks: [bom[..<1], bom[1...], event[...]]).events == [ServerSentEvent(data: "x")])
        #expect(Parsed(chunks: [(event + bom + event)[...]]).events == [ServerSentEvent(data: "x")])
    }

    @Test("retry: and id: in blocks without data change the parser's state without any event")
    func fieldsWithoutData() {
        var parser = EventStreamParser()
        #expect(parser.reconnectionTime == nil)
        #expect(parser.feed("retry: 2500\n".utf8).isEmpty)
        #expect(parser.reconnectionTime == 2.5)  // as soon as the field is read
        #expect(parser.feed("\nid: 42\n".utf8).isEmpty)
        #expect(parser.lastEventID == "")  // not dispatched yet
        #expect(parser.feed("\n".utf8).isEmpty)
        #expect(parser.lastEventID == "42")
        #expect(parser.feed("retry: soon\nid: 4\u{0}\n\n".utf8).isEmpty)  // both invalid: ignored
        #expect(parser.reconnectionTime == 2.5)
        #expect(parser.lastEventID == "42")
        #expect(parser.feed(Data("data: next\n\n".utf8)) == [ServerSentEvent(data: "next", id: "42")])
    }

    @Test("What is pending is counted, and an event cut off by the end is never dispatched")
    func pending() {
        var parser = EventStreamParser()
        #expect(parser.pendingByteCount == 0)
        #expect(parser.feed("data: 12345".utf8).isEmpty)
        #expect(parser.pendingByteCount >= 5)
        #expect(parser.feed("\n".utf8).isEmpty)
        #expect(parser.feed("\n".utf8) == [ServerSentEvent(data: "12345")])
        #expect(parser.pendingByteCount == 0)
    }

    @Test("The closure form hands events over in order and stops when it throws")
    func closureForm() {
        struct Stop: Error {}
        var parser = EventStreamParser()
        var seen: [String] = []
        #expect(throws: Stop.self) {
            try parser.feed("data: a\n\ndata: b\n\ndata: c\n\n".utf8) { event in
                seen.append(event.data)
                if event.data == "b" { throw Stop() }
            }
        }
        #expect(seen == ["a", "b"])
    }
}
