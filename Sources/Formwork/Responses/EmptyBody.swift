import Foundation

/// A type that can stand for an empty body (204, 205, a HEAD response, `Content-Length: 0`).
///
/// Decoding an empty body into a type that does not conform fails with
/// ``NetworkError/Kind/emptyResponse``.
protocol EmptyResponse {
    /// The value that stands for "no body".
    static func emptyValue() -> Self
}

/// A response with no content worth decoding: `responseDecodable(of: EmptyBody.self)` accepts an
/// empty body and any JSON body.
///
/// It was called `Empty` before, which clashed with Combine's `Empty` publisher in any app file
/// that imports both.
public struct EmptyBody: Codable, Sendable, Equatable, EmptyResponse {
    /// Creates the empty value.
    public init() {}

    /// Accepts any JSON value and ignores it.
    public init(from decoder: any Decoder) throws {}

    /// Encodes as an empty JSON object.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: EmptyKey.self)
    }

    /// The empty value.
    static func emptyValue() -> EmptyBody { EmptyBody() }

    private struct EmptyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension Optional: EmptyResponse {
    /// `nil`: an empty body decodes as no value.
    static func emptyValue() -> Wrapped? { nil }
}
