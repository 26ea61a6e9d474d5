import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

// Helpers the download suites share.

/// Reads the demo server's counters for one tag.
enum TagCounters {
    private struct Reply: Decodable, Sendable {
        let tag: TagStats
    }

    static func read(_ tag: String) async throws -> TagStats {
        try await Client().request(
            TestForm(url: try await DemoServer.url("/stats"), parameters: ["tag": tag])
        )
        .decode(Reply.self).tag
    }
}

/// Whether a downloaded file holds exactly the demo server's `/files` content (checked off the
/// concurrency pool: generating megabytes in a debug build is slow).
func matchesServerFile(_ file: URL, size: Int64, version: UInt64 = 0) async throws -> Bool {
    try await offPool { try Data(contentsOf: file) == DemoFileContent.bytes(size: size, version: version) }
}

/// Resumes a download from its resume data, fetching a clean URL (without the fault options).
struct ResumeForm: DownloadResumeFormable {
    let resumeData: ResumeData
    let url: String
    let destination: URL
    var destinationOptions: DownloadDestinationOptions = []
}

/// Every path under `folder` (hidden files included) with its contents (nil for a folder): equal
/// snapshots mean the folder is exactly as it was.
func folderSnapshot(_ folder: URL) throws -> [String: Data?] {
    var snapshot: [String: Data?] = [:]
    for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
        let url = folder.appendingPathComponent(path)
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        snapshot[path] = isDirectory.boolValue ? .some(nil) : try Data(contentsOf: url)
    }
    return snapshot
}

/// A fresh tag for the demo server's counters.
func uniqueDownloadTag() -> String { "t\(UUID().uuidString.prefix(12))" }

/// Checks the bytes a download cut by the server at `cut` kept, and returns them: exactly `cut`
/// over a transport that hands over every byte read before a cut, otherwise some bytes and at
/// most `cut` (the checks that follow then use what was kept, so a resume must still ask for
/// exactly the rest).
@discardableResult
func expectKept(_ kept: Int64, cut: Int64, sourceLocation: SourceLocation = #_sourceLocation) -> Int64 {
    if TransportUnderTest.keepsEveryByteBeforeACut {
        #expect(kept == cut, sourceLocation: sourceLocation)
    } else {
        #expect(kept > 0 && kept <= cut, "kept \(kept) of a cut at \(cut)", sourceLocation: sourceLocation)
    }
    return kept
}
