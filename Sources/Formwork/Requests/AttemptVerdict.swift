import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How an attempt ends once its exchange did: which failure wins, as one pure rule.
///
/// In order: a failure settled during the attempt (a redirect that failed Formwork's checks, a
/// sink that could not write) wins over what the transport then reports (the cancel that failure
/// caused); a transport's own ``NetworkError`` is kept as it is; any other transport error becomes
/// a `.transport` failure; a download whose file is complete succeeds whatever the status of the
/// answer that proved it (a `416`); any other HTTP response is validated; a response that is not
/// HTTP fails.
enum AttemptVerdict {
    /// The attempt failed.
    case failed(NetworkError)
    /// The attempt succeeded without validation.
    case succeeded
    /// The response is validated (by the app's validators, outside the request's lock).
    case validate(ResponseHead)

    /// The verdict on an attempt whose exchange ended.
    /// - Parameters:
    ///   - settled: A failure settled during the attempt.
    ///   - error: The error the transport ended the exchange with, if any.
    ///   - response: The response head, if an HTTP one arrived.
    ///   - request: The attempt's request (for the error).
    ///   - body: The body kept in memory (nil when it went to a sink).
    ///   - isCompleteOnDisk: Whether the attempt's sink holds the complete body.
    static func of(
        settled: NetworkError?, error: (any Error)?, response: ResponseHead?, request: URLRequest,
        body: Data?,
        isCompleteOnDisk: @autoclosure () -> Bool
    ) -> AttemptVerdict {
        if let settled { return .failed(settled) }
        if let error = error as? NetworkError { return .failed(error) }  // e.g. a body stream not made
        if let error {
            return .failed(
                .transport(error, request: request, response: response?.httpURLResponse, data: body))
        }
        guard let response else {
            return .failed(
                NetworkError(
                    .transport, failureReason: "The server's response was not an HTTP response.",
                    underlyingError: URLError(.badServerResponse), request: request, data: body))
        }
        return isCompleteOnDisk() ? .succeeded : .validate(response)
    }
}
