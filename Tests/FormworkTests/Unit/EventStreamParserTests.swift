import Foundation
import Testing

@testable import Formwork

/// Every event `text` yields when fed in one piece.
private func parse(_ text: String) -> [ServerSentEvent] {
    var parser = EventStreamParser()
    return parser.feed(Array(text.utf8))
}

/// Every event `chunks` yield when fed one after the other.
private func parse(chunks: [[UInt8]]) -> [ServerSentEvent] {
    var parser = EventStreamParser()
    return chunks.flatMap { parser.feed($0) }
}

@Suite("Event stream parser: the WHATWG rules for interpreting an event stream")
struct EventStreamParserTests {
    @Test("A data line and a blank line dispatch a message event")
    func simpleEvent() {
        #expect(parse("data: hello\n\n") == [ServerSentEvent(data: "hello")])
    }

    @Test("Several data lines join with LF and the final LF is removed")
    func multiLineData() {
        #expect(parse("data: a\ndata:\ndata: b\n\n") == [ServerSentEvent(data: "a\n\nb")])
    }

    @Test("CR, LF and CR LF each end a line", arguments: ["\r", "\n", "\r\n"])
    func lineEnds(end: String) {
        let text = "event: e" + end + "data: x" + end + end + "data: y" + end + end
        #expect(parse(text) == [ServerSentEvent(type: "e", data: "x"), ServerSentEvent(data: "y")])
    }

    @Test("A CR ending one chunk and an LF starting the next are one line end")
    func splitCRLF() {
        let events = parse(chunks: [Array("data: a\r".utf8), Array("\ndata: b\r\n\r\n".utf8)])
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("A leading BOM is skipped once; a second one is part of the first field's name")
    func byteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(parse(chunks: [bom + Array("data: x\n\n".utf8)]) == [ServerSentEvent(data: "x")])
        #expect(
            parse(chunks: [[0xEF], [0xBB], [0xBF] + Array("data: x\n\n".utf8)]) == [
                ServerSentEvent(data: "x")
            ])
        #expect(parse(chunks: [bom + bom + Array("data: x\n\n".utf8)]).isEmpty)
        #expect(
            parse(chunks: [bom + bom + Array("data: x\n\ndata: y\n\n".utf8)]) == [ServerSentEvent(data: "y")])
    }

    @Test("Comment lines are ignored")
    func comments() {
        #expect(parse(": keep-alive\ndata: x\n:another\n\n") == [ServerSentEvent(data: "x")])
        #expect(parse(":\n\n").isEmpty)
    }

    @Test("A line with no colon is a field with an empty value")
    func fieldWithoutColon() {
        #expect(parse("data\n\n") == [ServerSentEvent(data: "")])
        #expect(parse("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
        #expect(parse("event: e\nevent\ndata: x\n\n") == [ServerSentEvent(type: "message", data: "x")])
    }

    @Test("Only one space after the colon is removed")
    func oneSpace() {
        #expect(parse("data:  two\n\n") == [ServerSentEvent(data: " two")])
        #expect(parse("data:none\n\n") == [ServerSentEvent(data: "none")])
        #expect(parse("data:\tx\n\n") == [ServerSentEvent(data: "\tx")])
    }

    @Test("An id holding NUL is ignored; others set the last event ID")
    func idWithNUL() {
        #expect(parse("id: 1\ndata: a\n\nid: 2\u{0}x\ndata: b\n\n").map(\.id) == ["1", "1"])
    }

    @Test("The last event ID carries over to later events and is set by a block without data")
    func lastEventIDCarries() {
        #expect(parse("id: 7\ndata: a\n\ndata: b\n\n").map(\.id) == ["7", "7"])
        var parser = EventStreamParser()
        #expect(parser.feed(Array("id: 9\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "9")
        #expect(parser.feed(Array("data: c\n\n".utf8)).map(\.id) == ["9"])
        #expect(parse("id: 3\ndata: a\n\nid\ndata: b\n\n").map(\.id) == ["3", ""])
    }

    @Test("An id in an event cut off by the end of the stream does not count")
    func cutOffID() {
        var parser = EventStreamParser()
        _ = parser.feed(Array("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8))
        #expect(parser.lastEventID == "1")
    }

    @Test(
        "retry takes only ASCII digits",
        arguments: [
            ("retry: 1500\n", 1500), ("retry:0\n", 0), ("retry: +5\n", nil), ("retry: -5\n", nil),
            ("retry: 1.5\n", nil), ("retry: 15a\n", nil), ("retry: \n", nil), ("retry\n", nil),
            ("retry: ١٢\n", nil), ("retry: 99999999999999999999999\n", Int.max),
        ] as [(String, Int?)])
    func retryDigits(line: String, expected: Int?) {
        var parser = EventStreamParser()
        _ = parser.feed(Array(line.utf8))
        #expect(parser.retry == expected)
    }

    @Test("A blank line with no data dispatches nothing and resets the type")
    func emptyDataNoDispatch() {
        #expect(parse("event: x\n\ndata: y\n\n") == [ServerSentEvent(type: "message", data: "y")])
        #expect(parse("\n\n\n").isEmpty)
    }

    @Test("The event type is used and reset after each event")
    func eventType() {
        #expect(
            parse("event: score\ndata: 1\n\ndata: 2\n\n") == [
                ServerSentEvent(type: "score", data: "1"), ServerSentEvent(type: "message", data: "2"),
            ])
    }

    @Test("An event not ended by a blank line is never dispatched")
    func incompleteAtEnd() {
        #expect(parse("data: a\n").isEmpty)
        #expect(parse("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
    }

    @Test("Unknown and wrongly cased fields are ignored")
    func unknownFields() {
        #expect(parse("Data: x\nfoo: bar\n\n").isEmpty)
        #expect(parse("foo: bar\ndata: x\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test("Invalid UTF-8 becomes U+FFFD; a character split across chunks survives")
    func utf8() {
        #expect(
            parse(chunks: [Array("data: ".utf8) + [0xFF] + Array("\n\n".utf8)]) == [
                ServerSentEvent(data: "\u{FFFD}")
            ])
        let e = Array("data: é\n\n".utf8)
        #expect(parse(chunks: [Array(e[..<7]), Array(e[7...])]) == [ServerSentEvent(data: "é")])
    }

    @Test("U+2028 and U+0085 are data, not line ends")
    func otherNewlinesAreData() {
        #expect(parse("data: a\u{2028}b\u{85}c\n\n") == [ServerSentEvent(data: "a\u{2028}b\u{85}c")])
    }

    @Test("Splitting the same bytes at every boundary, or at random ones, yields the same events")
    func chunkingDoesNotMatter() {
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array(EventStreamSamples.mixed.utf8) + [0xFF, 0x0D]
            + Array("\ndata: é\r\r".utf8)
        var whole = EventStreamParser()
        let expected = whole.feed(bytes)
        #expect(expected.count == EventStreamSamples.mixedEventCount + 1)
        for cut in 0...bytes.count {
            #expect(parse(chunks: [Array(bytes[..<cut]), Array(bytes[cut...])]) == expected, "cut at \(cut)")
        }
        var random = SplitMix(seed: 15)
        for _ in 0..<300 {
            var chunks: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let length = Int(random.next() % 9)
                let end = min(bytes.count, start + length)
                chunks.append(Array(bytes[start..<end]))
                start = end
            }
            #expect(parse(chunks: chunks) == expected)
        }
        #expect(parse(chunks: bytes.map { [$0] }) == expected)
    }
}

/// Event stream texts shared by the parser tests.
enum EventStreamSamples {
    /// Mixed line ends, comments, ids, retry, multi-line data, a field without colon.
    static let mixed =
        ": hello\r\nretry: 10\nid: 1\nevent: a\ndata: one\ndata:two\r\rdata\r\n\nid: 2\0\ndata: three\n\n"
        + "event: b\n\nid: 3\n\ndata: four\n\n"
    /// The events `mixed` holds.
    static let mixedEventCount = 4
}

/// A small deterministic random generator (SplitMix64) for reproducible random splits.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
