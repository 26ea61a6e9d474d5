import Foundation

/// One stored response (RFC 9111 §3): its status, header fields and body, when its exchange took
/// place, and the request's values of the fields its `Vary` names.
struct CacheEntry: Sendable, Equatable {
    /// The final URL the response came from (after redirects).
    var url: String
    /// The status code.
    var statusCode: Int
    /// The stored header fields (hop-by-hop and proxy fields removed, see ``CacheStorability``).
    var headers: HTTPHeaders
    /// The body as URLSession delivered it (content coding already removed).
    var body: Data
    /// When the request that got this response was sent (`request_time`, RFC 9111 §4.2.3).
    var requestTime: Date
    /// When the response arrived (`response_time`).
    var responseTime: Date
    /// The request's values of the fields named by `Vary` (see ``CacheVary``).
    var vary: [CacheVary.Value]

    /// The directives of the stored `Cache-Control`.
    var cacheControl: CacheControl { CacheControl(headers["Cache-Control"]) }

    /// The size counted against a cache's capacity: body plus a rough size of the rest.
    var cost: Int {
        body.count + url.utf8.count + headers.reduce(64) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}

extension HTTPHeaders {
    /// The header fields of a response as Formwork stores and compares them.
    /// - Parameter response: The response.
    init(response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers[name] = value as? String ?? String(describing: value)
        }
        self = headers
    }
}
