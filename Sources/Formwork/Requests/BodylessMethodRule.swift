import Foundation

/// GET and HEAD requests carry no body, on every platform.
///
/// Apple's URLSession refuses to send a GET with a body while corelibs (Linux) sends it, so the
/// same form would work on a server and fail in an app. Formwork checks the final request of each
/// attempt (after every adapter) and fails it with ``NetworkError/Kind/requestBuildFailed``
/// before anything is sent. A form's GET parameters never hit this: the default `.url` encoding
/// puts them in the query; it is `.json` encoding, a body set by an adapter, or an upload form
/// whose method is GET that does.
enum BodylessMethodRule {
    /// Throws when a GET or HEAD request has a body.
    /// - Parameters:
    ///   - request: The final request of an attempt.
    ///   - body: How the attempt's body travels besides the request (an upload's data or file).
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/requestBuildFailed``.
    static func check(_ request: URLRequest, body: PreparedRequest.Body = .inRequest) throws(NetworkError) {
        let method = request.httpMethod ?? "GET"
        guard method.equalsIgnoringASCIICase("GET") || method.equalsIgnoringASCIICase("HEAD") else { return }
        let hasBody: Bool
        switch body {
        case .inRequest:
            hasBody = request.httpBodyStream != nil || !(request.httpBody?.isEmpty ?? true)
        case .data, .file:
            hasBody = true
        }
        guard hasBody else { return }
        throw NetworkError(
            .requestBuildFailed,
            failureReason:
                "A \(method.uppercased()) request cannot carry a body (Apple platforms refuse to send one): put the "
                + "parameters in the query (ParameterEncoding.url or .query) or use another method.",
            request: request)
    }
}
