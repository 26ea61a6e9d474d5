import Foundation

/// Anything that sends forms: a view controller, a view model, a service, a struct, an actor.
///
/// The protocol is empty; conforming gives the type `request(_:)` and `send(_:)`:
///
/// ```swift
/// final class HomeScreen: Requestable {
///     func refresh() {
///         request(WeatherForm(city: "shanghai"))
///             .responseDecodable(of: Weather.self, atKeyPath: "data") { print($0.value as Any) }
///     }
/// }
/// ```
public protocol Requestable {}

extension Requestable {
    /// Sends a form and returns the request, to chain hooks and handlers on (see
    /// ``Session/request(_:isolation:)`` for when it starts).
    /// - Parameters:
    ///   - form: What to send.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request.
    @discardableResult
    public func request(
        _ form: some RequestFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    )
        -> DataRequest
    {
        session.request(form, isolation: isolation)
    }

    /// Sends a typed form and returns its decoded response (the body at the form's `keyPath`).
    ///
    /// Callable from any actor and from non-Sendable conformers; it runs on the caller's actor and
    /// waits without going through the main actor. Cancelling the calling `Task` cancels the request.
    /// - Parameters:
    ///   - form: What to send.
    ///   - session: The session that runs it.
    /// - Returns: The decoded response.
    /// - Throws: ``NetworkError``.
    public nonisolated(nonsending) func send<F: TypedFormable>(_ form: F, session: Session = .default)
        async throws(NetworkError) -> F.Response
    {
        // Decoding starts the request at once: no scheduled start needed.
        try await session.makeDataRequest(form).decode(F.Response.self, atKeyPath: form.keyPath)
    }
}
