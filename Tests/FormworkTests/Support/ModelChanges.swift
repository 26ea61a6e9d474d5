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
        case phase, value, fractionCompleted, message
    }

    private let model: RequestModel<Value>
    /// The properties that changed, oldest first.
    private(set) var names: [String] = []
    /// Counts changes, to wait for them.
    let counter = EventCounter()
    /// ``RequestModel/fractionCompleted`` as read on the main actor's next turn after each of its
    /// changes (`onChange` runs before the new value is stored).
    private(set) var fractions: [Double?] = []

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
            }
        } onChange: { [weak self] in
            MainActor.assumeIsolated { self?.changed(property) }
        }
    }

    private func changed(_ property: Property) {
        names.append(property.rawValue)
        arm(property)
        if property == .fractionCompleted {
            Task { @MainActor [weak self, model] in self?.fractions.append(model.fractionCompleted) }
        }
        counter.increment()
    }
}
