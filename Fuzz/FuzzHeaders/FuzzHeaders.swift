// libFuzzer target: header validation must never crash, and a header set it accepts must carry no
// CR, LF or NUL and only token characters in names. Build and run: see CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

private let tokenCharacters = Set(
    "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Lines of "name:value"; bytes are taken as UTF-8 (invalid sequences become U+FFFD).
    var headers = HTTPHeaders()
    for line in bytes.split(separator: 0xFF, omittingEmptySubsequences: false).prefix(8) {
        let parts = line.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(decoding: parts[0], as: UTF8.self)
        let value = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
        headers[name] = value
    }
    guard (try? headers.validate()) != nil else { return 0 }
    for header in headers {
        guard !header.name.isEmpty, header.name.utf8.allSatisfy({ tokenCharacters.contains($0) }) else {
            fatalError("accepted an invalid header name \(header.name.debugDescription)")
        }
        guard !header.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            fatalError("accepted a header value with CR, LF or NUL: \(header.value.debugDescription)")
        }
    }
    var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
    request.headers = headers
    _ = request.cURLDescription()
    return 0
}
