import NIOCore
import NIOHTTP1

/// Redirects: `/redirect?to=URL&status=302` answers with `Location: URL` (to test what a client
/// keeps and drops when it follows, e.g. credentials on a hop to another host).
enum RedirectRoutes {
    static let routes: [Route] = [
        Route(nil, .exact("/redirect")) { request in
            guard let target = request.queryValue("to"), !target.isEmpty,
                !target.contains("\r"), !target.contains("\n")
            else { return .badRequest("Missing or invalid to") }
            let code = Int(request.queryValue("status") ?? "302") ?? 302
            guard [301, 302, 303, 307, 308].contains(code) else { return .badRequest("Invalid status") }
            var response = DemoResponse.json(
                ["location": .string(target)], status: HTTPResponseStatus(statusCode: code))
            response.headers.replaceOrAdd(name: "Location", value: target)
            return response
        }
    ]
}
