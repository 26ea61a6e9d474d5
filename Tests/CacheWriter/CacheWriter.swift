// A child process for the HTTP cache's crash-safety test: fills a disk cache through a session
// until it is killed. Usage: CacheWriter <cache directory> <resource URL prefix>; prints
// "stored N" after each response is stored (its file is written right after, in the background).
import Formwork
import Foundation

/// A cacheable form for one resource.
struct ResourceForm: RequestFormable {
    let url: String
}

/// Sends the requests.
struct Writer: Requestable {}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: CacheWriter <directory> <url prefix>\n".utf8))
    exit(2)
}
let cache = try HTTPCache(directory: URL(fileURLWithPath: arguments[1]), diskCapacity: 1 << 30)
let session = Session { $0.cache = cache }
for index in 0..<100_000 {
    _ = try await Writer().request(ResourceForm(url: arguments[2] + String(index)), session: session).data()
    FileHandle.standardOutput.write(Data("stored \(index)\n".utf8))
}
