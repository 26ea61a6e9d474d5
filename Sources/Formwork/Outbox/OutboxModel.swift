import Foundation
import Observation

/// An outbox's state for SwiftUI: how many requests wait, what the outbox is doing, and the
/// latest result. Bind it with ``Outbox/bind(to:)``; SwiftUI observes it directly.
///
/// ```swift
/// let pending = OutboxModel()
/// outbox.bind(to: pending)
/// // in a view: Text("\(pending.pendingCount) waiting to be sent")
/// ```
///
/// Available from iOS 17, macOS 14, tvOS 17, watchOS 10 and visionOS 1 (the Observation
/// framework); on older systems read ``Outbox/statusUpdates()`` and ``Outbox/deliveries()``.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class OutboxModel {
    /// How many requests are pending.
    public internal(set) var pendingCount = 0
    /// What the outbox is doing.
    public internal(set) var phase = Outbox.Status.Phase.idle
    /// The latest request that ended, with its result.
    public internal(set) var lastDelivery: Outbox.Delivery?

    /// Creates a model showing an idle, empty outbox until it is bound.
    public init() {}
}

extension Outbox {
    /// Keeps `model` up to date with this outbox until the outbox closes or the model is released
    /// (the outbox holds it weakly).
    /// - Parameter model: The model.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor
    public func bind(to model: OutboxModel) {
        let (statuses, deliveries) = (statusUpdates(), deliveryHub.subscribe(takesUnheard: false))
        Task { @MainActor [weak model] in
            for await status in statuses {
                guard let model else { return }
                model.pendingCount = status.pendingCount
                model.phase = status.phase
            }
        }
        Task { @MainActor [weak model] in
            for await delivery in deliveries {
                guard let model else { return }
                model.lastDelivery = delivery
            }
        }
    }
}
