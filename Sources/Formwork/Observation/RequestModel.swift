import Foundation
import Observation

/// The state of one screen's request, for SwiftUI: what phase it is in, how far the transfer has
/// come, the latest value, the sentence to show when it failed, and a ``reload()``.
///
/// A request is bound to it with one hook, `bind(to:)` (`bindEnvelope(to:)` for a value inside an
/// ``Envelope``). The verb is not `load`: `load(_:)` shows a loading mask, `bind(to:)` drives a model.
///
///
/// ```swift
/// @MainActor
/// final class WeatherScreenModel: Requestable {
///     let weather = RequestModel<Weather>()
///
///     func refresh() {
///         request(WeatherForm(city: "shanghai")).bind(to: weather, atKeyPath: "data")
///     }
/// }
/// ```
///
/// A SwiftUI view reads ``phase``, ``fractionCompleted`` and ``message`` and calls ``reload()``;
/// SwiftUI observes the model directly (it is `@Observable`). Every change happens on the main
/// actor, in one step per event: loading begins, progress moves, the request ends.
///
/// What it promises:
///
/// - **The latest request wins.** Each `.bind(to: model)` takes the model over; an earlier request
///   that is still running no longer changes it (its outcome and progress are ignored).
/// - **``reload()`` re-sends the last request** through the same chain (every hook and handler
///   runs again, decoding included), as a reload prompt does. It holds the request's snapshot of
///   the form, never the object that sent it.
/// - **It never retains its owner.** The request keeps the model weakly; the model keeps only the
///   request (for ``reload()``). A screen that owns the model is released as usual.
/// - **Streams**: `stream(form).bind(to: model)` makes ``value`` the latest event (or JSON line)
///   and ``connection`` the state of the connection; both change at most once per frame however
///   fast the server sends, and the last item is always shown.
/// - **WebSockets**: `socket.bind(to: model)` does the same with the latest message
///   (``WebSocket/bind(to:)``).
/// - **A cancel is not a failure**: the model goes back to ``Phase/idle`` with no message, as
///   `.warn` shows nothing for a cancel; ``value`` keeps the last success.
///
/// Available from iOS 17, macOS 14, tvOS 17, watchOS 10 and visionOS 1 (the Observation
/// framework); on older systems use the headless hooks (`.load`, `.progress`, `.warn`).
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class RequestModel<Value: Sendable> {
    /// Where the request stands: idle, loading, succeeded with a value, or failed with an error.
    public internal(set) var phase: Phase

    /// The value of the latest success, kept while a retry loads and after a later failure, so a
    /// screen can keep showing it (a pull to refresh that failed keeps the old list).
    public internal(set) var value: Value?

    /// How far the current transfer has come, 0...1, or `nil` when nothing was reported yet or the
    /// total is unknown (show an indeterminate indicator then). Reported only by requests bound
    /// with `tracksProgress: true`; updated at most once per main-actor turn, like `.progress`.
    public internal(set) var fractionCompleted: Double?

    /// The sentence to show when the request failed (``NetworkError/userMessage``: the server's
    /// message for a business error, else the ``MessageCatalog`` words), `nil` otherwise.
    public internal(set) var message: String?

    /// Where the connection of the stream that drives the model stands (see
    /// ``StreamConnectionState``): `connecting`, `open`, `lost` when an open connection ends,
    /// `reconnecting(after:)` after it, and `closed` when the stream ends. ``StreamConnectionState/idle`` when no stream drives it.
    /// Changed on the main actor, throttled with ``value`` (at most one change of either per frame).
    public internal(set) var connection: StreamConnectionState = .idle

    /// The request that drives the model now, if any.
    @ObservationIgnored var driver: ModelDriver?

    /// Creates a model in a given phase: ``Phase/idle`` for a screen, any phase for a preview.
    /// - Parameter phase: The phase to start in; a ``Phase/succeeded(_:)`` phase also sets
    ///   ``value``, and a ``Phase/failed(_:)`` phase sets ``message``.
    public init(_ phase: Phase = .idle) {
        self.phase = phase
        self.value = phase.value
        self.message = phase.error?.userMessage
    }

    /// `true` when ``reload()`` would send something: a request drove the model and ended with a
    /// success or a failure (not a cancel).
    public var canReload: Bool {
        driver?.canResend == true && !phase.isLoading
    }

    /// Sends the last request again through the same chain, when it has ended with a success or
    /// a failure: the model is ``Phase/loading`` at once (a tap shows at once), and every hook and
    /// handler of that chain runs again, decoding included. Does nothing while it loads, before any
    /// request drove the model, or after the request was cancelled (a cancel is final, as for a
    /// reload prompt).
    public func reload() {
        guard canReload, let driver else { return }
        begin(from: driver)
        driver.resend()
    }

    /// Cancels the request that drives the model now (a stream a screen no longer shows, or a
    /// download the user stopped). The model goes back to ``Phase/idle`` (a stream's
    /// ``connection`` to ``StreamConnectionState/closed``) when the request has ended; a cancelled
    /// request is never sent again by ``reload()``. Does nothing when no request drives the model.
    public func cancel() {
        driver?.canResend = false
        driver?.cancel()
    }
}
