import Foundation

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension Request {
    /// The one wiring of a model to a request that ends with one value (a data, upload or
    /// download request): begin now and on later attempts, progress through the progress hook's
    /// relay, the outcome at the model's place in the chain.
    @MainActor
    func driveModel<Value: Sendable>(
        _ model: RequestModel<Value>, tracksProgress: Bool,
        serialize: @escaping @Sendable (RequestOutcome) -> Result<Value, NetworkError>
    ) -> Self {
        let core = self.core
        let driver = model.attach(cancel: { core.cancel() }, resend: { core.restart() })
        model.begin(from: driver)
        core.onLaterAttemptStart { [weak model, weak driver] in model?.begin(from: driver) }
        let relay: ProgressRelay?
        if tracksProgress {
            let progressRelay = ProgressRelay { [weak model, weak driver] in model?.report($0, from: driver) }
            core.addProgressObserver { progressRelay.post($0, attempt: $1) }
            relay = progressRelay
        } else {
            relay = nil
        }
        core.append { [weak model, weak driver] outcome in
            let result = serialize(outcome)
            await MainActor.run {
                relay?.flush()
                model?.finish(result, from: driver)
            }
        }
        return self
    }
}
