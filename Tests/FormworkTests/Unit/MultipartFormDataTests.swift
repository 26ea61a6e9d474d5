import Foundation
import Testing

@testable import Formwork

@Suite struct MultipartFormDataTests {
    private func text(_ form: MultipartFormData) throws -> String {
        String(decoding: try form.encodedData(), as: UTF8.self)
    }

    @Test func exactByteLayout() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append(Data("Ada".utf8), name: "name")
        form.append(Data("{}".utf8), name: "meta", mimeType: "application/json")
        form.append(Data([0x00, 0xFF]), name: "blob", fileName: "a.bin")
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"name\"\r\n"
            + "\r\n"
            + "Ada\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"meta\"\r\n"
            + "Content-Type: application/json\r\n"
            + "\r\n"
            + "{}\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"blob\"; filename=\"a.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n"
            + "\r\n"
        var bytes = Data(expected.utf8)
        bytes.append(contentsOf: [0x00, 0xFF])
        bytes.append(Data("\r\n--XyZ--\r\n".utf8))
        #expect(try form.encodedData() == bytes)
        #expect(form.contentLength == Int64(bytes.count))
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test func emptyFormIsJustTheCloseDelimiter() throws {
        let form = MultipartFormData(boundary: "b")
        #expect(try text(form) == "--b--\r\n")
        #expect(form.contentLength == 7)
        #expect(form.isEmpty)
    }

    @Test func fieldWithoutFileNameHasNoContentTypeUnlessGiven() throws {
        var form = MultipartFormData(boundary: "b")
        form.append(Data("x".utf8), name: "plain")
        form.append(Data("y".utf8), name: "typed", mimeType: "text/plain; charset=utf-8")
        form.append(Data("z".utf8), name: "photo", fileName: "me.PNG")
        let body = try text(form)
        #expect(body.contains("name=\"plain\"\r\n\r\nx\r\n"))
        #expect(body.contains("name=\"typed\"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ny"))
        #expect(body.contains("filename=\"me.PNG\"\r\nContent-Type: image/png\r\n\r\nz"))
        #expect(form.count == 3)
    }

    @Test(arguments: [
        ("jpg", "image/jpeg"), ("JPEG", "image/jpeg"), ("png", "image/png"), ("gif", "image/gif"),
        ("heic", "image/heic"), ("webp", "image/webp"), ("svg", "image/svg+xml"), ("pdf", "application/pdf"),
        ("json", "application/json"), ("txt", "text/plain"), ("csv", "text/csv"), ("html", "text/html"),
        ("mp4", "video/mp4"), ("mov", "video/quicktime"), ("mp3", "audio/mpeg"), ("m4a", "audio/mp4"),
        ("zip", "application/zip"), ("gz", "application/gzip"),
        ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("xyz", "application/octet-stream"), ("", "application/octet-stream"),
    ])
    func mimeTypeGuessing(pathExtension: String, expected: String) {
        #expect(MIMEType.guess(forPathExtension: pathExtension) == expected)
    }

    @Test(arguments: [
        ("photo.jpg", "image/jpeg"), ("archive.tar.gz", "application/gzip"),
        ("README", "application/octet-stream"),
        (".hidden", "application/octet-stream"), ("trailing.", "application/octet-stream"),
    ])
    func mimeTypeFromFileName(fileName: String, expected: String) {
        #expect(MIMEType.guess(forFileName: fileName) == expected)
    }

    @Test func filePartDefaultsToLastComponentAndGuessedType() throws {
        let scratch = try ScratchDirectory("multipart")
        defer { scratch.remove() }
        let file = try scratch.write(Data("hello".utf8), to: "notes.txt")
        let bare = try scratch.write(Data("raw".utf8), to: "noextension")
        var form = MultipartFormData(boundary: "b")
        form.append(file, name: "doc")
        form.append(file, name: "renamed", fileName: "other.pdf")
        form.append(file, name: "typed", mimeType: "text/markdown")
        form.append(bare, name: "bare", fileName: "pic.jpg")
        form.append(bare, name: "unknown")
        let body = try text(form)
        #expect(
            body.contains("name=\"doc\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n")
        )
        // The type comes from the file's own extension, not from the name it is sent under.
        #expect(body.contains("name=\"renamed\"; filename=\"other.pdf\"\r\nContent-Type: text/plain\r\n"))
        #expect(body.contains("name=\"typed\"; filename=\"notes.txt\"\r\nContent-Type: text/markdown\r\n"))
        // A file without an extension falls back to the sent name's extension, then octet-stream.
        #expect(body.contains("name=\"bare\"; filename=\"pic.jpg\"\r\nContent-Type: image/jpeg\r\n"))
        #expect(body.contains("filename=\"noextension\"\r\nContent-Type: application/octet-stream\r\n"))
    }

    @Test(arguments: [
        ("a\"b", "a%22b"), ("line\r\nInjected: yes", "line%0D%0AInjected: yes"), ("semi;colon", "semi;colon"),
        ("报告 2024.pdf", "报告 2024.pdf"), ("café\u{301}", "café\u{301}"), ("100%", "100%"),
    ])
    func namesAreEscapedForTheQuotedString(raw: String, escaped: String) throws {
        var form = MultipartFormData(boundary: "b")
        form.append(Data("x".utf8), name: raw, fileName: raw)
        let body = try text(form)
        #expect(
            body.contains("Content-Disposition: form-data; name=\"\(escaped)\"; filename=\"\(escaped)\"\r\n"))
        // Whatever the name, the part still has exactly its two header lines.
        let header = body.components(separatedBy: "\r\n\r\n")[0]
        #expect(header.components(separatedBy: "\r\n").count == 3)
    }

    @Test func nonASCIIFileNameIsRawUTF8() throws {
        var form = MultipartFormData(boundary: "b")
        form.append(Data(), name: "f", fileName: "日本.txt")
        let data = try form.encodedData()
        #expect(ByteSearch.contains(Array("filename=\"日本.txt\"".utf8), in: data))
        #expect(!String(decoding: data, as: UTF8.self).contains("filename*"))
    }

    @Test(arguments: ["text/plain\r\nX-Evil: 1", "text/plain\n", "bad\u{0}type"])
    func mimeTypeWithControlCharactersFails(mimeType: String) {
        var form = MultipartFormData(boundary: "b")
        form.append(Data("x".utf8), name: "f", mimeType: mimeType)
        #expect(form.contentLength == nil)
        let error = #expect(throws: NetworkError.self) { try form.encodedData() }
        #expect(error?.kind == .multipartEncodingFailed)
        #expect(error?.reason == .invalidMIMEType)
    }

    @Test func generatedBoundariesAreLongRandomAndValid() throws {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let boundary = MultipartFormData().boundary
            #expect(boundary.hasPrefix("formwork.boundary."))
            let random = boundary.dropFirst("formwork.boundary.".count)
            #expect(random.count == 32)
            #expect(random.allSatisfy { $0.isHexDigit })
            seen.insert(boundary)
        }
        #expect(seen.count == 1000)
        let form = MultipartFormData()
        #expect(form.contentType == "multipart/form-data; boundary=\(form.boundary)")
        try form.validateBoundary()
    }

    @Test func generatedBoundaryIsRedrawnWhenAnInMemoryPartContainsIt() throws {
        var form = MultipartFormData()
        let original = form.boundary
        form.append(Data("before \(original) after".utf8), name: "tricky")
        form.append(Data("no boundary here".utf8), name: "plain")
        #expect(form.boundary != original)
        let body = try text(form)
        // The new boundary occurs only as delimiters: 2 parts + the close delimiter.
        #expect(body.components(separatedBy: form.boundary).count - 1 == 3)
    }

    @Test func customBoundaryContainedInAPartFails() {
        var form = MultipartFormData(boundary: "fixed")
        form.append(Data("this is fixed text".utf8), name: "a")
        #expect(form.boundary == "fixed")
        #expect(form.contentLength == nil)
        let error = #expect(throws: NetworkError.self) { try form.encodedData() }
        #expect(error?.kind == .multipartEncodingFailed)
        #expect(error?.reason == .boundaryCollision)
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends with space ", "semi;colon", "tab\tx", "é"])
    func invalidCustomBoundaryFails(boundary: String) {
        let form = MultipartFormData(boundary: boundary)
        let error = #expect(throws: NetworkError.self) { try form.encodedData() }
        #expect(error?.kind == .multipartEncodingFailed)
        #expect(error?.reason == .invalidBoundary)
    }

    @Test func customBoundaryWithSpecialCharactersIsQuotedInContentType() throws {
        let form = MultipartFormData(boundary: "a b:c=d")
        #expect(form.contentType == "multipart/form-data; boundary=\"a b:c=d\"")
        #expect(try text(form) == "--a b:c=d--\r\n")
    }
}

@Suite struct ByteSearchTests {
    @Test func findsFirstOccurrence() {
        let haystack = Data("xxabcabc".utf8)
        #expect(haystack.withUnsafeBytes { ByteSearch.firstIndex(of: Array("abc".utf8), in: $0) } == 2)
        #expect(haystack.withUnsafeBytes { ByteSearch.firstIndex(of: Array("abd".utf8), in: $0) } == nil)
        #expect(ByteSearch.contains(Array("cabc".utf8), in: haystack))
        #expect(!ByteSearch.contains(Array("xxabcabcx".utf8), in: haystack))
        #expect(ByteSearch.contains([], in: Data()))
    }

    @Test(arguments: 1...12)
    func streamingSearchFindsMatchesAcrossChunkEdges(split: Int) {
        let text = Data("0123456789--boundary--0123".utf8)
        let needle = Array("--boundary--".utf8)
        var search = StreamingByteSearch(needle: needle)
        var found = false
        var start = 0
        while start < text.count, !found {
            let end = min(start + split, text.count)
            found = search.feed(Data(text[start..<end]))
            start = end
        }
        #expect(found)
    }

    @Test func streamingSearchHasNoFalsePositives() {
        var search = StreamingByteSearch(needle: Array("abcd".utf8))
        for piece in ["ab", "c", "xabc", "", "dxx"] {
            let found = search.feed(Data(piece.utf8))
            #expect(found == (piece == "dxx"))
        }
    }
}
