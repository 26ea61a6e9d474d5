// libFuzzer target: the JSON key-path reader must never crash, what it finds must be a
// well-formed JSON value that lies inside the document, and measuring the value without
// checking it must find the same bytes, and check everything but the value. Build and run: see CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONKeyPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    // The first line picks the path; the rest is the document.
    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.startIndex
    let pathText = String(decoding: bytes[bytes.startIndex..<newline], as: UTF8.self)
    let document = bytes[newline...].dropFirst()
    guard let path = JSONKeyPath(pathText.isEmpty ? "data" : pathText) else { return 0 }
    // Measured without being checked, the value is found wherever it is found checked, at the
    // same bytes.
    let measured = try? path.range(in: Data(document), checksValue: false)
    // A measured value that is well-formed on its own leaves nothing unchecked: the document is
    // then one the checked reader accepts too. (Under 500 bytes, so that no nesting comes near
    // the reader's depth limit, which counts the value's depth in the document.)
    if document.count < 500, let measured, measured.upperBound <= document.count,
        (try? JSONKeyPath.root.range(in: Data(Data(document)[measured]))) != nil,
        (try? path.range(in: Data(document))) == nil
    {
        fatalError("measured \(measured) in a document the checked reader refuses")
    }
    guard let range = try? path.range(in: Data(document)) else { return 0 }
    guard measured == range else {
        fatalError("measured \(measured.map { "\($0)" } ?? "nothing") where checked found \(range)")
    }
    guard range.lowerBound >= 0, range.upperBound <= document.count, !range.isEmpty else {
        fatalError("range \(range) outside a document of \(document.count) bytes")
    }
    let value = Data(document)[range]
    // The value on its own is a document whose root the reader accepts.
    guard (try? JSONKeyPath.root.range(in: Data(value))) != nil else {
        fatalError("the value found at \(path) is not well-formed on its own")
    }
    return 0
}
