// libFuzzer target: the multipart writer must never crash, its length must be what it announced,
// and splitting the body at its boundary must give back every part's bytes unchanged (so no
// content can collide with the boundary). Build and run: see CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Parts are separated by 0xFE; in each, the first 0xFD splits "name|fileName" from the body.
    var form = MultipartFormData()
    var bodies: [Data] = []
    for chunk in bytes.split(separator: 0xFE, omittingEmptySubsequences: false).prefix(6) {
        let pieces = chunk.split(separator: 0xFD, maxSplits: 1, omittingEmptySubsequences: false)
        let header = String(decoding: pieces[0], as: UTF8.self).split(separator: "|", maxSplits: 1)
        let name = header.first.map(String.init) ?? ""
        let fileName = header.count > 1 ? String(header[1]) : nil
        let body = pieces.count > 1 ? Data(pieces[1]) : Data()
        form.append(
            body, name: name, fileName: fileName, mimeType: fileName == nil ? nil : "application/x-fuzz")
        bodies.append(body)
    }
    guard let encoded = try? form.encodedData() else { return 0 }
    guard Int64(encoded.count) == form.contentLength else {
        fatalError("wrote \(encoded.count) bytes, announced \(String(describing: form.contentLength))")
    }
    let delimiter = Data("--\(form.boundary)".utf8)
    var segments: [Data] = []
    var rest = encoded[...]
    while let range = rest.firstRange(of: delimiter) {
        segments.append(Data(rest[..<range.lowerBound]))
        rest = rest[range.upperBound...]
    }
    // A preamble (empty), one segment per part, then the closing "--\r\n".
    guard segments.count == bodies.count + 1, rest == Data("--\r\n".utf8) else {
        fatalError("the boundary occurs \(segments.count) times for \(bodies.count) parts")
    }
    for (segment, body) in zip(segments.dropFirst(), bodies) {
        guard let split = segment.firstRange(of: Data("\r\n\r\n".utf8)) else {
            fatalError("a part has no header end")
        }
        let content = segment[split.upperBound...].dropLast(2)  // the CRLF before the next delimiter
        guard Data(content) == body else { fatalError("a part's bytes changed") }
    }
    return 0
}
