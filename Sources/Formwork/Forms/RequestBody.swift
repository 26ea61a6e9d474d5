import Foundation

/// A request body given as it is: bytes and their media type, for a form's
/// ``RequestFormable/body`` (XML, protobuf, a signed payload, text...).
///
/// ```swift
/// struct InvoiceForm: RequestFormable {
///     let xml: Data
///     var url: String { "https://api.example.com/invoices" }
///     var method: HTTPMethod { .post }
///     var body: RequestBody? { RequestBody(xml, contentType: "application/xml") }
/// }
/// ```
public struct RequestBody: Sendable, Equatable {
    /// The bytes sent as the body.
    public var data: Data
    /// The `Content-Type` sent with them, unless the session's or the form's headers name one.
    public var contentType: String

    /// Creates a body.
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - contentType: Their media type, e.g. `"application/xml"`.
    public init(_ data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}
