import FormworkTestSupport
import Foundation

@testable import Formwork

/// A form whose every part is set by the test.
struct TestForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
    var parameters: Parameters = [:]
    var encoding: ParameterEncoding = .url
    var idleTimeout: TimeInterval? = nil
}

/// A form that relies on every default the library gives.
struct DefaultsForm: RequestFormable {
    let url: String
}

/// What the demo server's `/echo` endpoint sends back.
struct Echo: Decodable, Sendable {
    let method: String
    let path: String
    let query: String
    let queryItems: [String: [String]]
    let headers: [String: String]
    let body: String?
    let bodyLength: Int
    let contentType: String?
    let json: JSONValue?
    let form: [String: [String]]?
}

/// Any JSON value, for asserting on echoed JSON bodies.
enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }
}

/// MBNetwork's weather envelope: `{"data": {"code", "message", ...}}`.
struct Weather: Decodable, Sendable, Equatable {
    struct Day: Decodable, Sendable, Equatable {
        let day: String
        let high: Int
        let low: Int
    }

    let code: String
    let message: String
    let city: String
    let temperature: Double
    let condition: String
    let forecast: [Day]
}

/// One article of the `{code, msg, data: {list: [...]}}` list.
struct Article: Decodable, Sendable, Equatable {
    let id: Int
    let title: String
    let author: String
}

/// The weather call as a typed form: `send` returns a `Weather`.
struct WeatherForm: TypedFormable {
    typealias Response = Weather
    let base: String
    let city: String
    var url: String { base + "/weather" }
    var parameters: Parameters { ["city": city] }
    var keyPath: String? { "data" }
}

extension Request {
    /// Starts the request if nothing has (a request made in nonisolated code with nothing chained
    /// waits for `resume()`), then waits until its URLSession task is in flight (polls the
    /// lifecycle; no fixed sleep).
    func waitUntilRunning() async {
        resume()
        while core.lifecycleState != .running, !isFinished {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}

extension DataResponding {
    /// Waits for a `responseDecodable` handler (which runs on the main actor) and returns what it got.
    func handled<T: Decodable & Sendable>(_ type: T.Type, atKeyPath keyPath: String? = nil) async
        -> DataResponse<T>
    {
        await withCheckedContinuation { continuation in
            responseDecodable(of: type, atKeyPath: keyPath) { continuation.resume(returning: $0) }
        }
    }

    /// Waits for a `responseString` handler and returns what it got.
    func handledString() async -> DataResponse<String> {
        await withCheckedContinuation { continuation in
            responseString { continuation.resume(returning: $0) }
        }
    }
}

/// A conformer for tests: anything can be `Requestable`. Making one puts the transport under
/// test in place (see `TransportUnderTest`), before the suite's first request.
struct Client: Requestable {
    init() {
        _ = TransportUnderTest.installed
    }
}
