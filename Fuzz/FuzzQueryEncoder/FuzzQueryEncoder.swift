// libFuzzer target: the URL query encoder must never crash on any parameters, and its output
// must be a valid, fully percent-encoded query. Build and run: see CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

/// Turns fuzz bytes into nested parameters: strings, numbers, bools, arrays and dictionaries.
struct ParameterReader {
    var bytes: [UInt8]
    var index = 0

    mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func string() -> String {
        let count = Int(next() ?? 0) % 12
        var scalars: [UInt8] = []
        for _ in 0..<count { scalars.append(next() ?? 0x61) }
        return String(decoding: scalars, as: UTF8.self)
    }

    mutating func value(depth: Int) -> any Sendable {
        switch (next() ?? 0) % 9 {
        case 0: return string()
        case 1: return Int(Int8(bitPattern: next() ?? 0)) * 1000
        case 2: return (next() ?? 0) % 2 == 0
        case 3: return Double(next() ?? 0) / 7
        case 4: return NSNull()
        case 5 where depth < 4: return (0..<Int((next() ?? 0) % 4)).map { _ in value(depth: depth + 1) }
        case 6 where depth < 4: return dictionary(depth: depth + 1)
        case 7: return Optional<String>.none as any Sendable
        default: return string()
        }
    }

    mutating func dictionary(depth: Int) -> Parameters {
        var parameters: Parameters = [:]
        for _ in 0..<Int((next() ?? 0) % 5) {
            parameters[string()] = value(depth: depth)
        }
        return parameters
    }
}

private let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%&=?/".utf8)

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryEncoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var reader = ParameterReader(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    // The first byte picks the encoder's options, the rest builds the parameters.
    let encoders = [
        URLQueryEncoder(), URLQueryEncoder(arrayEncoding: .noBrackets, boolEncoding: .numeric),
        URLQueryEncoder(arrayEncoding: .indexInBrackets),
    ]
    let choice = Int(reader.next() ?? 0) % encoders.count
    let parameters = reader.dictionary(depth: 0)
    for encoder in [encoders[choice]] {
        guard let query = try? encoder.encode(parameters) else { continue }
        let bytes = Array(query.utf8)
        for (offset, byte) in bytes.enumerated() {
            guard allowed.contains(byte) else { fatalError("unencoded byte \(byte) in \(query)") }
            if byte == UInt8(ascii: "%") {
                guard offset + 2 < bytes.count, bytes[offset + 1].isHexDigit, bytes[offset + 2].isHexDigit
                else { fatalError("broken escape in \(query)") }
            }
        }
        guard URLComponents(string: "http://h/p?" + query) != nil else {
            fatalError("unparseable query \(query)")
        }
    }
    return 0
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
