import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The response head of an attempt, as the engine keeps it: the `HTTPURLResponse` a transport
/// gave, or a ``TransportResponseHead`` whose `HTTPURLResponse` is made the first time something
/// asks for it (and then kept, so every reader sees the same object).
///
/// The engine reads the status and fields from here; only what hands a response to app code
/// (``RequestOutcome/response``, errors, validators, monitors, the cache, a download's file)
/// asks for ``httpURLResponse``.
final class ResponseHead: Sendable {
    private enum Source: Sendable {
        case response(HTTPURLResponse)
        case parts(TransportResponseHead, made: Protected<HTTPURLResponse??>)
    }

    /// The HTTP status code.
    let statusCode: Int
    private let source: Source

    /// A head that already is an `HTTPURLResponse`.
    init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        source = .response(response)
    }

    /// The head a transport reported: the `HTTPURLResponse` it was made from, if any, or parts
    /// whose `HTTPURLResponse` is made when first asked for.
    init(_ parts: TransportResponseHead) {
        statusCode = parts.statusCode
        if let response = parts.response {
            source = .response(response)
        } else {
            source = .parts(parts, made: Protected(nil))
        }
    }

    /// The `HTTPURLResponse` (made now if this head has none yet).
    var httpURLResponse: HTTPURLResponse? {
        switch source {
        case .response(let response):
            return response
        case .parts(let parts, let made):
            return made.withLock { made in
                if let response = made { return response }
                let response = parts.httpURLResponse()
                made = .some(response)
                return response
            }
        }
    }

    /// The HTTP version, when the transport said it (a head made from parts); `nil` for an
    /// `HTTPURLResponse`, which does not tell it.
    var httpVersion: String? {
        if case .parts(let parts, _) = source { return parts.httpVersion }
        return nil
    }

    /// The value of a field (letter case ignored).
    func value(forHTTPHeaderField name: String) -> String? {
        switch source {
        case .response(let response): response.value(forHTTPHeaderField: name)
        case .parts(let parts, _): parts.value(forHTTPHeaderField: name)
        }
    }

    /// The body's length from `Content-Length`, or -1 when unknown (as `URLResponse` says it).
    var expectedContentLength: Int64 {
        switch source {
        case .response(let response):
            return response.expectedContentLength
        case .parts(let parts, _):
            let text = parts.value(forHTTPHeaderField: "Content-Length")?.trimmingOWS()
            return text.flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } ?? -1
        }
    }

    /// The header fields, one per name (repeated fields joined with ", ").
    var headers: HTTPHeaders {
        switch source {
        case .response(let response):
            return HTTPHeaders(response: response)
        case .parts(let parts, _):
            return parts.joinedHeaders
        }
    }
}
