import Foundation

/// The requests a session's forms built lately, by what they were built from: a form sent again
/// (a list refreshed, a screen reopened) gets the same `URLRequest` without checking,
/// percent-encoding and parsing its URL and setting its headers again.
///
/// Building a small GET's `URLRequest` from its form costs about 25,000 instructions on Linux
/// (the URL text read and encoded, the query appended, the URL parsed, the request made and its
/// headers set), a quarter of Formwork's own work for such a request; a lookup here costs a lock
/// and the hash of the key. A request is a function of its key and of the session's
/// configuration, which never changes, so a remembered one is the one the form would get. Only
/// forms whose parameters go to the query string use it (their request carries no body), and
/// only requests that were built without an error are kept. Bounded: once ``capacity`` requests
/// are kept, the memo starts over.
final class RequestMemo: Sendable {
    /// The most requests kept.
    static let capacity = 256

    /// What a form's request is built from, besides the session's configuration.
    struct Key: Hashable, Sendable {
        /// The form's URL text, as written.
        let text: String
        /// The query its parameters add, percent-encoded.
        let query: String
        /// The method.
        let method: String
        /// The form's own idle timeout.
        let idleTimeout: TimeInterval?
        /// The form's own headers.
        let headers: HTTPHeaders

        /// The URL text and the query: what tells most keys apart (equal keys have both equal),
        /// hashed without the rest, which a lookup compares anyway.
        func hash(into hasher: inout Hasher) {
            hasher.combine(text)
            hasher.combine(query)
        }
    }

    private let requests = Protected([Key: URLRequest]())

    /// The request remembered for `key`, if any.
    func request(for key: Key) -> URLRequest? {
        requests.withLock { $0[key] }
    }

    /// Remembers `request` as what `key` builds.
    func remember(_ request: URLRequest, for key: Key) {
        requests.withLock { requests in
            if requests.count >= Self.capacity { requests.removeAll(keepingCapacity: true) }
            requests[key] = request
        }
    }

    /// How many requests are remembered (for tests).
    var count: Int { requests.withLock { $0.count } }
}
