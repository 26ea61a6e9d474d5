import Foundation
import Testing

@testable import Formwork

/// The `Range` a download asks for, by where it stands.
@Suite struct DownloadRangeTests {
    private static let tag = ResumeData.Validator.entityTag("\"v1\"")

    /// A download resuming from `kept` bytes (really on disk) of a file of `total` bytes.
    private func resuming(
        kept: Int64, total: Int64?, validator: ResumeData.Validator? = tag, segmentSize: Int64? = 1_000,
        in scratch: ScratchDirectory
    ) throws -> DownloadFile {
        let partial = try scratch.write(Data(count: Int(kept)), to: ".partial")
        let resumeData = ResumeData(
            url: "http://127.0.0.1/f", partialFileURL: partial, bytesReceived: kept, totalBytes: total,
            validator: validator)
        return DownloadFile(resuming: resumeData, destination: scratch.file("f"), segmentSize: segmentSize)
    }

    private func headers(_ file: DownloadFile) -> [String: String] {
        Dictionary(uniqueKeysWithValues: file.rangeHeaders)
    }

    @Test func aResumeAsksForTheRestOpenEndedWhenItFitsInOneSegment() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(
            try headers(resuming(kept: 500, total: 1_200, in: scratch)) == [
                "Range": "bytes=500-", "If-Range": "\"v1\"",
            ])
        // A complete partial file: the answer (416) proves it.
        #expect(try headers(resuming(kept: 1_200, total: 1_200, in: scratch))["Range"] == "bytes=1200-")
        // Not segmenting: always open-ended.
        #expect(
            try headers(resuming(kept: 500, total: nil, segmentSize: nil, in: scratch))["Range"]
                == "bytes=500-")
    }

    @Test func aResumeWithALargeOrUnknownRestKeepsTheSegmentBound() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // One open-ended response for a large rest could pile up in memory (no back-pressure).
        #expect(try headers(resuming(kept: 500, total: 5_000, in: scratch))["Range"] == "bytes=500-1499")
        #expect(try headers(resuming(kept: 500, total: nil, in: scratch))["Range"] == "bytes=500-1499")
    }

    @Test func withoutAValidatorNothingIsResumed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(
            try headers(resuming(kept: 500, total: 1_200, validator: nil, in: scratch)) == [
                "Range": "bytes=0-999"
            ])
        #expect(
            try headers(resuming(kept: 500, total: 1_200, validator: nil, segmentSize: nil, in: scratch))
                .isEmpty)
    }

    @Test func aPartialFileShorterThanRecordedStartsFromZero() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(Data(count: 10), to: ".short")
        let resumeData = ResumeData(
            url: "http://127.0.0.1/f", partialFileURL: partial, bytesReceived: 500, totalBytes: 1_200,
            validator: Self.tag)
        let file = DownloadFile(resuming: resumeData, destination: scratch.file("f"), segmentSize: nil)
        #expect(file.rangeHeaders.isEmpty)
    }
}
