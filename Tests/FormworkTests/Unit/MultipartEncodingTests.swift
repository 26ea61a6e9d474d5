import Foundation
import Testing

@testable import Formwork

@Suite struct MultipartEncodingTests {
    /// A form with fields, an in-memory file and two files on disk (one several chunks long).
    private func mixedForm(in scratch: ScratchDirectory, bigSize: Int) throws -> MultipartFormData {
        let small = try scratch.write(Data("small file\n".utf8), to: "small.txt")
        let big = try scratch.write(patternedData(count: bigSize), to: "big.bin")
        var form = MultipartFormData()
        form.append(Data("Ada".utf8), name: "name")
        form.append(small, name: "small")
        form.append(patternedData(count: 1000, seed: 7), name: "memory", fileName: "memory.dat")
        form.append(big, name: "big")
        form.append(Data(), name: "empty")
        return form
    }

    @Test func fileBackedEncodingEqualsInMemoryEncoding() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let form = try mixedForm(in: scratch, bigSize: 300_000)
        let inMemory = try form.encodedData()
        let output = scratch.file("body.multipart")
        try form.writeEncoded(to: output)
        let written = try Data(contentsOf: output)
        #expect(written == inMemory)
        #expect(form.contentLength == Int64(written.count))
        // Small chunks exercise the gathering of small pieces around file chunks.
        let chunked = scratch.file("chunked.multipart")
        try form.writeEncoded(to: chunked, chunkSize: 4096)
        #expect(try Data(contentsOf: chunked) == inMemory)
    }

    @Test func multiMiBFileIsCopiedInChunks() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let size = 5 * (1 << 20) + 123
        let content = patternedData(count: size, seed: 3)
        let file = try scratch.write(content, to: "large.bin")
        var form = MultipartFormData()
        form.append(file, name: "large")
        var pieces: [Int] = []
        var body = Data()
        try MultipartWriter(form: form).write { piece in
            pieces.append(piece.count)
            body.append(piece)
        }
        // Header, 6 chunks of at most 1 MiB (the last one 123 bytes), CRLF, close delimiter.
        let fileChunks = pieces.dropFirst().dropLast(2)
        #expect(Array(fileChunks) == Array(repeating: 1 << 20, count: 5) + [123])
        #expect(pieces.allSatisfy { $0 <= MultipartWriter.defaultChunkSize })
        #expect(Int64(body.count) == form.contentLength)
        #expect(ByteSearch.contains(Array(content.suffix(64)), in: body))
        let output = scratch.file("large.multipart")
        try form.writeEncoded(to: output)
        #expect(try Data(contentsOf: output) == body)
    }

    @Test func contentLengthIsComputedWithoutReadingAndMatchesTheOutput() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let form = try mixedForm(in: scratch, bigSize: 2_000_001)
        let length = try #require(form.contentLength)
        let output = scratch.file("out")
        try form.writeEncoded(to: output)
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? NSNumber
        #expect(size?.int64Value == length)
    }

    @Test func missingFileIsAClearError() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let missing = scratch.file("nope.jpg")
        var form = MultipartFormData()
        form.append(Data("x".utf8), name: "first")
        form.append(missing, name: "avatar")
        #expect(form.contentLength == nil)
        let error = #expect(throws: NetworkError.self) { try form.encodedData() }
        #expect(error?.kind == .fileOperationFailed)
        #expect(error?.reason == .fileNotFound)
        #expect(error?.fileURL == missing)
        #expect(error?.description.contains("nope.jpg") == true)
        #expect(error?.description.contains("avatar") == true)
        // Nothing is left behind by a failed file encoding.
        let output = scratch.file("body")
        #expect(throws: NetworkError.self) { try form.writeEncoded(to: output) }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func directoryAndNonFileURLsFail() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        var directory = MultipartFormData()
        directory.append(scratch.url, name: "dir")
        let directoryError = #expect(throws: NetworkError.self) { try directory.encodedData() }
        #expect(directoryError?.kind == .fileOperationFailed)
        #expect(directoryError?.reason == .fileIsDirectory)
        #expect(directoryError?.fileURL == scratch.url)
        var remote = MultipartFormData()
        remote.append(try #require(URL(string: "https://example.com/a.png")), name: "remote")
        let remoteError = #expect(throws: NetworkError.self) { try remote.encodedData() }
        #expect(remoteError?.kind == .fileOperationFailed)
        #expect(remoteError?.reason == .notAFileURL)
    }

    @Test func fileThatChangedSizeFails() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let file = try scratch.write(Data(count: 100), to: "f")
        for expected: Int64 in [99, 101] {
            let error = #expect(throws: NetworkError.self) {
                try MultipartFile.copy(
                    file, part: "f", expectedSize: expected, boundary: Array("b0undary".utf8), chunkSize: 16
                ) { _ in }
            }
            #expect(error?.kind == .fileOperationFailed)
            #expect(error?.reason == .fileSizeChanged)
            #expect(error?.fileURL == file)
        }
    }

    @Test func filePartContainingTheBoundaryFails() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        var content = patternedData(count: 3000)
        content.replaceSubrange(1020..<1030, with: Data("--fixed-b-".utf8))
        let file = try scratch.write(content, to: "f.bin")
        var form = MultipartFormData(boundary: "fixed-b")
        form.append(file, name: "f")
        #expect(form.contentLength != nil)  // only copying can see it
        let output = scratch.file("out")
        let error = #expect(throws: NetworkError.self) {
            try form.writeEncoded(to: output, chunkSize: 1024)
        }
        #expect(error?.kind == .multipartEncodingFailed)
        #expect(error?.reason == .boundaryCollision)
        #expect(error?.fileURL == file)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func writeEncodedNeverOverwritesAFile() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let existing = try scratch.write(Data("keep me".utf8), to: "existing")
        var form = MultipartFormData()
        form.append(Data("x".utf8), name: "a")
        let error = #expect(throws: NetworkError.self) { try form.writeEncoded(to: existing) }
        #expect(error?.kind == .fileOperationFailed)
        #expect(error?.reason == .outputFileExists)
        #expect(error?.fileURL == existing)
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
        let unwritable = scratch.file("no/such/dir/body")
        let second = #expect(throws: NetworkError.self) { try form.writeEncoded(to: unwritable) }
        #expect(second?.kind == .fileOperationFailed)
        #expect(second?.reason == .outputNotWritable)
        #expect(second?.fileURL == unwritable)
    }

    @Test func bodyBelowTheThresholdStaysInMemory() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        var form = MultipartFormData()
        form.append(patternedData(count: 5000), name: "a", fileName: "a.bin")
        let length = try #require(form.contentLength)
        let body = try form.encodedBody(memoryThreshold: Int(length) + 1, temporaryDirectory: scratch.url)
        #expect(body == .data(try form.encodedData()))
        #expect(body.contentLength == length)
        #expect(try scratch.contents().isEmpty)
        body.removeTemporaryFile()  // harmless
    }

    @Test func bodyAtOrAboveTheThresholdGoesToATemporaryFileThatCanBeRemoved() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let file = try scratch.write(patternedData(count: 200_000), to: "input.bin")
        var form = MultipartFormData()
        form.append(file, name: "input")
        let length = try #require(form.contentLength)
        let body = try form.encodedBody(memoryThreshold: Int(length), temporaryDirectory: scratch.url)
        guard case .temporaryFile(let url, let fileLength) = body else {
            Issue.record("expected a temporary file, got \(body)")
            return
        }
        #expect(fileLength == length)
        #expect(url.lastPathComponent.hasPrefix(EncodedMultipartBody.temporaryFilePrefix))
        #expect(try Data(contentsOf: url) == form.encodedData())
        body.removeTemporaryFile()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        body.removeTemporaryFile()  // idempotent
        #expect(try scratch.contents() == ["input.bin"])
    }

    @Test func defaultTemporaryFileIsInTheTemporaryDirectoryWithAUniqueName() throws {
        let first = EncodedMultipartBody.newTemporaryFileURL()
        let second = EncodedMultipartBody.newTemporaryFileURL()
        #expect(first != second)
        #expect(
            first.deletingLastPathComponent().standardizedFileURL
                == FileManager.default.temporaryDirectory.standardizedFileURL)
        #expect(MultipartFormData.defaultEncodingMemoryThreshold == 10_000_000)
    }

    @Test func failedTemporaryFileEncodingLeavesNothingBehind() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        var form = MultipartFormData()
        form.append(patternedData(count: 100), name: "a")
        form.append(scratch.file("missing.bin"), name: "b")
        #expect(throws: NetworkError.self) {
            try form.encodedBody(memoryThreshold: 0, temporaryDirectory: scratch.url)
        }
        #expect(try scratch.contents().isEmpty)
    }

    @Test func staleTemporaryFilesAreRemoved() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let stale = EncodedMultipartBody.newTemporaryFileURL(in: scratch.url)
        let fresh = EncodedMultipartBody.newTemporaryFileURL(in: scratch.url)
        try Data("old".utf8).write(to: stale)
        try Data("new".utf8).write(to: fresh)
        try scratch.write(Data(), to: "unrelated.body")
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3 * 86_400)], ofItemAtPath: stale.path)
        let removed = EncodedMultipartBody.removeStaleTemporaryFiles(in: scratch.url)
        #expect(removed == 1)
        #expect(try scratch.contents() == [fresh.lastPathComponent, "unrelated.body"].sorted())
    }
}
