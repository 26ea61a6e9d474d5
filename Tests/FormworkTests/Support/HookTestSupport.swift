import Foundation
import Testing

@testable import Formwork

/// Counts events on the main actor and lets a test wait until a count is reached (no sleeps).
///
/// A wait gives up when its task is cancelled (a test's time limit), recording an issue, so a
/// broken hook fails the test instead of hanging the run.
@MainActor
final class EventCounter {
    private struct Waiter {
        let id: UUID
        let target: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private(set) var value = 0
    private var waiters: [Waiter] = []

    func increment() {
        value += 1
        let ready = waiters.filter { $0.target <= value }
        waiters.removeAll { $0.target <= value }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once `increment()` was called `target` times in all, or when the task is cancelled.
    func wait(for target: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard value < target else { return }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    waiters.append(Waiter(id: id, target: target, continuation: continuation))
                }
            }
        } onCancel: {
            Task { @MainActor in self.release(id) }
        }
        if value < target {
            Issue.record("Stopped waiting for \(target) events at \(value)", sourceLocation: sourceLocation)
        }
    }

    private func release(_ id: UUID) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume()
    }
}

/// Keeps values recorded on the main actor, in order.
@MainActor
final class Recorder<Value> {
    private(set) var values: [Value] = []
    func record(_ value: Value) { values.append(value) }
}

/// A load that logs its begin and end, then does the default mask work.
struct RecordingLoad: Loadable {
    let name: String
    let log: EventLog
    var container: (any Containable)?

    func maskContainer() -> (any Containable)? { container }

    func begin() {
        log.record("\(name).begin")
        showMask()
    }

    func end() {
        log.record("\(name).end")
        hideMask()
    }
}

/// Forwards to another loadable and calls `afterEnd` right after each `end()`, in the same
/// main-actor turn: a snapshot there cannot see another request's end.
struct ObservedLoad<Base: Loadable>: Loadable {
    let base: Base
    let afterEnd: @MainActor () -> Void

    func mask() -> (any Maskable)? { base.mask() }
    func inset() -> MaskInsets { base.inset() }
    func maskContainer() -> (any Containable)? { base.maskContainer() }
    func begin() { base.begin() }

    func end() {
        base.end()
        afterEnd()
    }
}

/// A load with a container but no mask: it must never take another load's mask away.
struct MasklessLoad: Loadable {
    let container: any Containable
    func mask() -> (any Maskable)? { nil }
    func maskContainer() -> (any Containable)? { container }
}

/// A load with its own mask type and insets.
struct IndicatorLoad: Loadable {
    let container: any Containable
    var insets = MaskInsets(top: 8, left: 4, bottom: 8, right: 4)
    func mask() -> (any Maskable)? { Headless.ActivityIndicator() }
    func inset() -> MaskInsets { insets }
    func maskContainer() -> (any Containable)? { container }
}

/// A screen (view controller stand-in): masks and reload prompts go on its root view.
@MainActor
final class Screen: Containable, Reloadable {
    let view = Headless.View()
    func containerView() -> (any MaskHost)? { view }
    func reloadContainer() -> (any Containable)? { self }
}

/// MBNetwork's weather error: code and message inside `data`, "200" is success.
struct WeatherError: JSONErrorable {
    static let envelope = Envelope(codePath: "data.code", messagePath: "data.message", successCodes: ["200"])
    let code: String?
    let message: String?
}

/// A `{code, msg, data}` API's error: `0` is success.
struct APIError: JSONErrorable {
    static let envelope = Envelope(messagePath: "msg", successCodes: ["0"])
    let code: String?
    let message: String?
}

/// The visibility of each mask, oldest first: `true` for a shown mask.
@MainActor
func visibility(_ host: any MaskHost) -> [Bool] {
    host.masks.map { !$0.isHidden }
}

/// An outcome as the engine would record it, for unit tests of the pure classifiers.
func makeOutcome(
    status: Int? = 200, body: String? = nil, error: NetworkError? = nil, method: String = "GET",
    headers: [String: String]? = nil
) -> RequestOutcome {
    let url = URL(string: "http://127.0.0.1/test")!
    var request = URLRequest(url: url)
    request.httpMethod = method
    let response = status.map {
        HTTPURLResponse(url: url, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: headers)!
    }
    return RequestOutcome(
        request: request, response: response,
        data: body.map { Data($0.utf8) } ?? (response == nil ? nil : Data()),
        error: error, attempt: 1, duration: 0)
}

/// The error validation reports for a status outside 2xx, with the body kept.
func statusFailure(_ status: Int, body: String = "") -> NetworkError {
    let url = URL(string: "http://127.0.0.1/test")!
    let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)
    return NetworkError(
        .unacceptableStatusCode, failureReason: "status \(status)", response: response, data: Data(body.utf8))
}
