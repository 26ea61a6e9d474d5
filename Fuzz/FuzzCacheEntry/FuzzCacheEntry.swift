// libFuzzer target: the HTTP cache's entry file reader must never crash on any bytes, an entry it
// accepts must read back the same after writing it again, and a valid entry file with one byte
// changed must never be accepted (a damaged entry is never served). Build and run: see
// CONTRIBUTING.md, "Fuzzing".
import Foundation

@testable import Formwork

/// libFuzzer's entry point: checks one input; a property violation stops with `fatalError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    // Any bytes as an entry file.
    if let (key, entry) = CacheEntryFile.decode(bytes) {
        let again = CacheEntryFile.decode(CacheEntryFile.encode(key: key, entry: entry), expectedKey: key)
        guard again?.entry == entry else { fatalError("an accepted entry did not read back the same") }
    }
    // The bytes as a body: a whole file reads back; any one changed byte is refused.
    let entry = CacheEntry(
        url: "http://127.0.0.1/fuzz", statusCode: 200, headers: ["Cache-Control": "max-age=60"], body: bytes,
        requestTime: Date(timeIntervalSince1970: 1), responseTime: Date(timeIntervalSince1970: 2), vary: [])
    var file = CacheEntryFile.encode(key: "GET http://127.0.0.1/fuzz\n", entry: entry)
    guard CacheEntryFile.decode(file)?.entry == entry else { fatalError("a whole entry file was refused") }
    guard size >= 2 else { return 0 }
    let position = (Int(bytes[0]) << 8 | Int(bytes[1])) % file.count
    file[position] ^= bytes[size - 1] == 0 ? 0x80 : bytes[size - 1]
    guard CacheEntryFile.decode(file) == nil else {
        fatalError("a damaged entry file was accepted at \(position)")
    }
    // Cut short anywhere: refused.
    guard CacheEntryFile.decode(file.prefix(position)) == nil else {
        fatalError("a truncated entry was accepted")
    }
    return 0
}
