import Foundation
import Testing

@testable import Formwork

/// The lines (as text, with numbers) `chunks` yield, the final unterminated one included.
private func lines(_ chunks: [[UInt8]]) -> [String] {
    var splitter = LineSplitter()
    var result: [String] = []
    for chunk in chunks {
        splitter.feed(chunk) { bytes, number in
            result.append("\(number):" + String(decoding: bytes, as: UTF8.self))
        }
    }
    if let last = splitter.finish() {
        result.append("\(last.number):" + String(decoding: last.bytes, as: UTF8.self))
    }
    return result
}

@Suite("Line splitter and stream feeds: lines, JSON lines, chunks")
struct LineSplitterTests {
    @Test("CR, LF and CR LF end lines; lines are numbered from 1, empty ones included")
    func lineEnds() {
        #expect(lines([Array("a\rb\nc\r\nd\n\ne".utf8)]) == ["1:a", "2:b", "3:c", "4:d", "5:", "6:e"])
    }

    @Test("A CR at a chunk's end and an LF at the next one's start are one line end")
    func splitCRLF() {
        #expect(lines([Array("a\r".utf8), Array("\nb\n".utf8)]) == ["1:a", "2:b"])
        #expect(lines([Array("a\r".utf8), Array("\r\n".utf8)]) == ["1:a", "2:"])
    }

    @Test("A final line with no line end is kept at the end of the stream")
    func finalLine() {
        #expect(lines([Array("x\ny".utf8)]) == ["1:x", "2:y"])
        #expect(lines([Array("x\n".utf8)]) == ["1:x"])
    }

    @Test("A BOM is skipped only at the very start; a partial one is data")
    func bom() {
        #expect(lines([[0xEF, 0xBB], [0xBF] + Array("a\n".utf8)]) == ["1:a"])
        #expect(lines([[0xEF, 0xBB]]) == ["1:\u{FFFD}"])  // one maximal invalid subpart
        #expect(lines([[0xEF] + Array("a".utf8)]) == ["1:\u{FFFD}a"])
    }

    @Test("Every chunk boundary yields the same lines")
    func chunkingDoesNotMatter() {
        let bytes = [0xEF, 0xBB, 0xBF] + Array("{\"n\":1}\r\n\r{\"n\":2}\n\u{2028}\r".utf8) + [0xC3]
        let expected = lines([bytes])
        for cut in 0...bytes.count {
            #expect(lines([Array(bytes[..<cut]), Array(bytes[cut...])]) == expected)
        }
    }

    @Test("A JSON line that does not decode is reported with its number and beginning")
    func jsonLineError() {
        let data = Data("{\"n\": oops}".utf8)
        let underlying = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad"))
        let error = JSONLine.error(underlying, line: 42, data: data, type: Int.self, request: nil)
        #expect(error.kind == .decodingFailed)
        #expect(error.failureReason.contains("JSON line 42"))
        #expect(error.failureReason.contains("{\"n\": oops}"))
    }

    @Test("The lines feed emits the final line only at a clean end; the events feed drops a partial event")
    func feeds() {
        var lineFeed = StreamFeed(mode: .lines)
        var count = 0
        lineFeed.feed(Data("a\nb".utf8)) { _ in count += 1 }
        #expect(count == 1)
        lineFeed.finish { item in
            if case .line(let data, let number) = item { #expect(data == Data("b".utf8) && number == 2) }
            count += 1
        }
        #expect(count == 2)
        var eventFeed = StreamFeed(mode: .events)
        var events = 0
        eventFeed.feed(Data("data: a\n\ndata: b\n".utf8)) { _ in events += 1 }
        eventFeed.finish { _ in events += 1 }
        #expect(events == 1)
        #expect(eventFeed.pendingByteCount > 0)
    }
}
