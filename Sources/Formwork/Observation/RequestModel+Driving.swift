/// The request that drives a ``RequestModel`` now: the model keeps it for ``RequestModel/reload()``
/// and compares it with the sender of each update, so only the latest request changes the model.
///
/// It holds what re-sends the request (the request itself, with its snapshot of the form), never
/// the object that sent it. The request's hooks hold it weakly, so no cycle keeps either alive.
@MainActor
final class ModelDriver {
    /// Sends the request again through its chain.
    let resend: @MainActor @Sendable () -> Void
    /// Cancels the request.
    let cancel: @MainActor @Sendable () -> Void
    /// `false` once the request was cancelled: a cancelled request is never sent again.
    var canResend = true
    /// What starts a run of a stream (reading it into the model); `nil` for other requests.
    var startRun: (@MainActor () -> Void)?

    init(resend: @escaping @MainActor @Sendable () -> Void, cancel: @escaping @MainActor @Sendable () -> Void)
    {
        self.resend = resend
        self.cancel = cancel
    }
}

// How requests change a model: one main-actor step per event, setting only what changes, so an
// observer hears each property once per event. This is also the extension point for streams: a
// stream hook attaches a driver, calls `begin` when it starts (and restarts), `receive` for each
// value (throttled by a `MainActorRelay`), `connect` for each change of its connection, and
// `finish` when it ends.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension RequestModel {
    /// Takes the model over for a new request; updates from earlier requests are ignored from now on.
    /// - Parameters:
    ///   - cancel: What ``cancel()`` runs.
    ///   - resend: What ``reload()`` runs.
    /// - Returns: The token the new request's updates carry.
    func attach(
        cancel: @escaping @MainActor @Sendable () -> Void = {},
        resend: @escaping @MainActor @Sendable () -> Void
    ) -> ModelDriver {
        let driver = ModelDriver(resend: resend, cancel: cancel)
        self.driver = driver
        return driver
    }

    /// `true` when `driver` is the request that drives the model now.
    func isDriven(by driver: ModelDriver?) -> Bool {
        driver != nil && driver === self.driver
    }

    /// An attempt begins: loading, no message, no progress yet.
    func begin(from driver: ModelDriver?) {
        guard isDriven(by: driver) else { return }
        if !phase.isLoading { phase = .loading }  // already, when reload() began it
        if message != nil { message = nil }
        if fractionCompleted != nil { fractionCompleted = nil }
    }

    /// The transfer moved (already coalesced by the progress hook's relay).
    func report(_ progress: TransferProgress, from driver: ModelDriver?) {
        guard isDriven(by: driver), phase.isLoading else { return }
        let fraction = progress.fractionCompleted
        if fraction != fractionCompleted { fractionCompleted = fraction }
    }

    /// A value arrived; the request goes on (a stream's event). Sets ``value`` only.
    func receive(_ value: Value, from driver: ModelDriver?) {
        guard isDriven(by: driver) else { return }
        self.value = value
    }

    /// The stream's connection changed (connecting, open, reconnecting, closed).
    func connect(_ state: StreamConnectionState, from driver: ModelDriver?) {
        guard isDriven(by: driver), connection != state else { return }
        connection = state
    }

    /// The attempt ended: succeeded with a value, failed with a message, or (cancelled) idle.
    func finish(_ result: Result<Value, NetworkError>, from driver: ModelDriver?) {
        guard isDriven(by: driver) else { return }
        switch result {
        case .success(let value):
            phase = .succeeded(value)
            self.value = value
        case .failure(let error) where error.isCancelled:
            driver?.canResend = false
            phase = .idle
        case .failure(let error):
            phase = .failed(error)
            let text = error.userMessage
            if message != text { message = text }
        }
    }

    /// A stream's throttled step: its connection's changes in order, then its newest item.
    func apply(_ update: StreamModelUpdate<Value>, from driver: ModelDriver?) {
        for state in update.connections { connect(state, from: driver) }
        if let value = update.value { receive(value, from: driver) }
    }

    /// A run of a stream ended: the connection is closed; a clean end succeeds with the last item
    /// (or goes back to idle when none came), a cancel goes back to idle, a failure fails.
    func end(_ failure: NetworkError?, from driver: ModelDriver?) {
        guard isDriven(by: driver) else { return }
        connect(.closed, from: driver)
        if let failure {
            finish(.failure(failure), from: driver)
        } else if let value {
            phase = .succeeded(value)
        } else {
            phase = .idle
        }
    }
}
