import Foundation

/// The URLs a session's forms resolved to lately, by the form's URL text and the query its
/// parameters add: a form sent again (a list refreshed, a screen reopened) skips checking,
/// percent-encoding and parsing its URL.
///
/// Reading a form's URL text into a `URL` (``URLText``, the query appended, `URL(string:)`) costs
/// about 13,000 instructions on Linux, a sixth of Formwork's own work for a small GET; a lookup
/// here costs a lock and the hash of the two texts. The URL is a function of the texts and the
/// session's base URL, which never changes, so a remembered URL is the one the form would get.
/// Bounded: once ``capacity`` texts are kept, the memo starts over.
final class URLMemo: Sendable {
    /// The most URLs kept.
    static let capacity = 256

    private struct Key: Hashable {
        let text: String
        let query: String
    }

    private let urls = Protected([Key: URL]())

    /// The URL remembered for the form's URL `text` with `query` appended, if any.
    func url(text: String, query: String) -> URL? {
        urls.withLock { $0[Key(text: text, query: query)] }
    }

    /// Remembers `url` as what the form's URL `text` with `query` appended resolves to.
    func remember(_ url: URL, text: String, query: String) {
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[Key(text: text, query: query)] = url
        }
    }

    /// How many URLs are remembered (for tests).
    var count: Int { urls.withLock { $0.count } }
}
