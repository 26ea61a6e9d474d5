import NIOHTTP1

/// Endpoints that answer with chosen statuses and error shapes: `/business-error`, `/text-error`,
/// `/empty` and `/status/CODE`.
enum ErrorRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/business-error"), respond: businessError),
        Route([.GET], .exact("/text-error"), respond: textError),
        Route([.GET], .exact("/empty"), respond: empty),
        Route(nil, .prefix("/status/"), respond: status),
    ]

    /// `GET /business-error?status=S&code=C&msg=M`: `{"code":C,"msg":M,"data":null}` with status S
    /// (default 200). C is a JSON number when it is an integer, else a string.
    static func businessError(_ request: DemoRequest) -> DemoResponse {
        guard let status = statusParameter(request, default: 200) else {
            return .badRequest("Invalid status")
        }
        let codeText = request.queryValue("code") ?? "1001"
        let code: JSON = Int(codeText).map(JSON.int) ?? .string(codeText)
        let message = request.queryValue("msg") ?? "Insufficient balance"
        return .json(["code": code, "msg": .string(message), "data": nil], status: status)
    }

    /// `GET /text-error?status=S`: a plain-text error page (default 503).
    static func textError(_ request: DemoRequest) -> DemoResponse {
        guard let status = statusParameter(request, default: 503) else {
            return .badRequest("Invalid status")
        }
        return .text("Service temporarily unavailable", status: status)
    }

    /// `GET|HEAD /empty?status=S`: no body (default 204; `Content-Length: 0` for statuses that
    /// may have a body).
    static func empty(_ request: DemoRequest) -> DemoResponse {
        guard let status = statusParameter(request, default: 204) else {
            return .badRequest("Invalid status")
        }
        return .empty(status: status)
    }

    /// `ANY /status/CODE`: that status with `{"status":CODE}` (no body for 204 and 304).
    static func status(_ request: DemoRequest) -> DemoResponse {
        let text = request.path.dropFirst("/status/".count)
        guard let code = Int(text), (200...599).contains(code) else {
            return .badRequest("Invalid status")
        }
        let status = HTTPResponseStatus(statusCode: code)
        guard status.mayHaveResponseBody else { return .empty(status: status) }
        return .json(["status": .int(code)], status: status)
    }

    /// The `status` query parameter as a final status (200...599), the default when absent,
    /// nil when invalid.
    static func statusParameter(_ request: DemoRequest, default defaultCode: Int) -> HTTPResponseStatus? {
        guard let text = request.queryValue("status") else {
            return HTTPResponseStatus(statusCode: defaultCode)
        }
        guard let code = Int(text), (200...599).contains(code) else { return nil }
        return HTTPResponseStatus(statusCode: code)
    }
}
