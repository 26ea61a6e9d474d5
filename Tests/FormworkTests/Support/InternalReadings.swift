import Foundation

@testable import Formwork

// What the docs tests (which see only the public API) need from inside Formwork: values only
// Formwork makes, and settings it keeps without showing them.

/// Resume data as a download cut off after `bytesReceived` bytes leaves it (Formwork makes resume
/// data; its initialiser is not public). A whole second for the date: it is stored as seconds since
/// 1970, and an arbitrary `Date()` does not always come back bit-identical from that `Double`.
func partialDownload(
    url: String, partialFileURL: URL, bytesReceived: Int64, totalBytes: Int64?, entityTag: String
) -> ResumeData {
    ResumeData(
        url: url, partialFileURL: partialFileURL, bytesReceived: bytesReceived, totalBytes: totalBytes,
        validator: .entityTag(entityTag), createdAt: Date(timeIntervalSince1970: 1_700_000_000))
}

/// The directory and options an outbox was opened with.
func openedWith(_ outbox: Outbox) -> (directory: URL, options: Outbox.Options) {
    (outbox.directory, outbox.options)
}

/// The bytes an HTTP cache holds in memory now.
func bytesInMemory(of cache: HTTPCache) -> Int {
    cache.memoryUsage
}
