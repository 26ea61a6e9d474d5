import Foundation

/// A request with a body does not follow a 307 or 308 redirect, on every platform.
///
/// Those redirects keep the method and must send the body again. corelibs URLSession (Linux)
/// sends the redirected request with an empty body (`Content-Length: 0`) — for a body in memory,
/// a file or a stream alike, measured against the demo server — while Apple platforms send it
/// again (asking for a new stream). Rather than let a server receive an upload without its body
/// on one platform, Formwork does not follow these redirects for requests with a body anywhere:
/// the 307/308 response is the request's response (default validation fails it with
/// ``NetworkError/Kind/unacceptableStatusCode``; its `Location` says where to send the request).
/// Redirects of requests without a body, and 301/302/303 (which turn into a GET), are followed.
enum RedirectBodyRule {
    /// Whether `task` may follow a redirect answered with `status`.
    /// - Parameters:
    ///   - task: The task being redirected.
    ///   - status: The redirect's status code.
    /// - Returns: `false` for a 307 or 308 of a request with a body.
    static func follows(_ task: URLSessionTask, status: Int) -> Bool {
        guard status == 307 || status == 308 else { return true }
        if task is URLSessionUploadTask { return false }
        guard let request = task.originalRequest else { return true }
        return request.httpBodyStream == nil && (request.httpBody?.isEmpty ?? true)
    }
}
