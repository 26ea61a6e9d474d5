import Foundation

/// The checks a request applies to its response before any handler sees it.
///
/// By default a request accepts the session's ``Session/Configuration/acceptableStatusCodes``
/// (200..<300). `.validate(statusCode:)` replaces that range for one request; `.validate(_:)`
/// adds a custom check. All of them run when the response has arrived, so they may be chained
/// on the line after `request(...)`.
struct ValidationRules: Sendable {
    /// Status codes set on the request itself; each set must contain the status.
    var statusCodeSets: [Set<Int>] = []
    /// When `true`, the response's Content-Type must match the request's Accept header.
    var checksContentType = false
    /// Custom checks, in the order chained.
    var custom: [@Sendable (URLRequest?, HTTPURLResponse, Data?) throws -> Void] = []

    /// Validates a completed response. Returns the first failure, or `nil`.
    /// The response head is read as it is; its `HTTPURLResponse` is made only for a failure or
    /// a custom check.
    func validate(
        request: URLRequest?, response head: ResponseHead, data: Data?, defaultStatusCodes: Range<Int>?
    ) -> NetworkError? {
        let status = head.statusCode
        let accepted: Bool
        if statusCodeSets.isEmpty {
            accepted = defaultStatusCodes?.contains(status) ?? true
        } else {
            accepted = statusCodeSets.allSatisfy { $0.contains(status) }
        }
        guard accepted else {
            return NetworkError(
                .unacceptableStatusCode,
                failureReason: "The response status \(status) is not acceptable.",
                request: request, response: head.httpURLResponse, data: data)
        }
        if checksContentType, let failure = contentTypeFailure(request, head, data) {
            return failure
        }
        guard !custom.isEmpty, let response = head.httpURLResponse else { return nil }
        for check in custom {
            do {
                try check(request, response, data)
            } catch {
                return NetworkError(
                    .validationFailed,
                    failureReason: "A validator rejected the response: \(error)",
                    underlyingError: error, request: request, response: response, data: data)
            }
        }
        return nil
    }

    private func contentTypeFailure(_ request: URLRequest?, _ head: ResponseHead, _ data: Data?)
        -> NetworkError?
    {
        guard let accept = request?.value(forHTTPHeaderField: "Accept"), !(data ?? Data()).isEmpty
        else { return nil }
        let acceptable = accept.split(separator: ",").map { MediaType($0) }
        let contentType = head.value(forHTTPHeaderField: "Content-Type")
        let received = contentType.map { MediaType(Substring($0)) }
        guard let received, acceptable.contains(where: { $0.matches(received) }) else {
            return NetworkError(
                .validationFailed,
                failureReason:
                    "The response content type \(contentType ?? "(none)") does not match Accept: \(accept).",
                request: request, response: head.httpURLResponse, data: data)
        }
        return nil
    }
}

/// A `type/subtype` pair parsed leniently from a header, parameters dropped.
private struct MediaType {
    let type: String
    let subtype: String

    init(_ text: Substring) {
        let essence = text.split(separator: ";").first.map(String.init) ?? ""
        let parts = essence.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "/")
        type = parts.first.map(String.init) ?? "*"
        subtype = parts.count > 1 ? String(parts[1]) : "*"
    }

    func matches(_ other: MediaType) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }
}
