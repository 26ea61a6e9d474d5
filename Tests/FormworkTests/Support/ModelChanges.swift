import Foundation
import Observation
import Testing

@testable import Formwork

/// Records which of a ``RequestModel``'s properties change, in order, with `withObservationTracking`:
/// one tracking per property, re-armed as soon as it fires, so every change is heard. Each change
/// must be made on the main actor: the tracking's `onChange` runs inside the change and asserts so
/// (`MainActor.assumeIsolated` stops the test process otherwise).
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
final class ModelChanges<Value: Sendable> {
    /// The observed properties, by the names `names` uses.
    enum Property: String, CaseIterable {
        case phase, value, fractionCompleted, message, connection
    }

    private let model: RequestModel<Value>
    /// The properties that changed, oldest first.
    private(set) var names: [String] = []
    /// Counts changes, to wait for them.
    let counter = EventCounter()
    /// ``RequestModel/fractionCompleted`` as read on the main actor's next turn after each of its
    /// changes (`onChange` runs before the new value is stored).
    private(set) var fractions: [Double?] = []
    /// ``RequestModel/connection`` before each of its changes (`onChange` runs inside the change,
    /// before the new value is stored, and the previous change is stored by then).
    private var connectionsBefore: [StreamConnectionState] = []

    /// Every state ``RequestModel/connection`` took, in order, the current one last (each
    /// change's new value is the next change's old value; the last one is read now).
    var connections: [StreamConnectionState] {
        Array(connectionsBefore.dropFirst()) + (connectionsBefore.isEmpty ? [] : [model.connection])
    }

    /// When each change happened (system uptime in nanoseconds), in the order of ``names``.
    private(set) var times: [UInt64] = []

    /// The seconds between consecutive changes of `property`.
    func gaps(_ property: Property) -> [Double] {
        let times = zip(names, self.times).filter { $0.0 == property.rawValue }.map(\.1)
        return zip(times, times.dropFirst()).map { Double($1 - $0) / 1_000_000_000 }
    }

    /// How many times `property` changed.
    func count(_ property: Property) -> Int {
        names.count { $0 == property.rawValue }
    }

    init(_ model: RequestModel<Value>) {
        self.model = model
        for property in Property.allCases { arm(property) }
    }

    /// Forgets what was recorded so far (the trackings stay armed).
    func reset() { names = [] }

    private func arm(_ property: Property) {
        let model = self.model
        withObservationTracking {
            switch property {
            case .phase: _ = model.phase
            case .value: _ = model.value
            case .fractionCompleted: _ = model.fractionCompleted
            case .message: _ = model.message
            case .connection: _ = model.connection
            }
        } onChange: { [weak self] in
            MainActor.assumeIsolated { self?.changed(property) }
        }
    }

    private func changed(_ property: Property) {
        names.append(property.rawValue)
        times.append(DispatchTime.now().uptimeNanoseconds)
        if property == .connection { connectionsBefore.append(model.connection) }
        arm(property)
        if property == .fractionCompleted {
            Task { @MainActor [weak self, model] in self?.fractions.append(model.fractionCompleted) }
        }
        counter.increment()
    }
}

extension StreamConnectionState {
    /// The state without its wait, to compare sequences.
    var name: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .open: "open"
        case .lost: "lost"
        case .reconnecting: "reconnecting"
        case .closed: "closed"
        }
    }
}
