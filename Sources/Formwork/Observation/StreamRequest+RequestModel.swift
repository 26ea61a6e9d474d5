import Foundation

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension StreamRequest {
    /// Binds a ``RequestModel`` to server-sent events, for a live screen: ``RequestModel/value``
    /// is the latest event and ``RequestModel/connection`` the state of the connection.
    ///
    /// ```swift
    /// stream(ScoresForm()).bind(to: scores)
    /// ```
    ///
    /// The model reads the stream (read it no other way): ``RequestModel/phase`` is
    /// ``RequestModel/Phase/loading`` while the stream runs, reconnections included, and
    /// ``RequestModel/connection`` goes `connecting`, `open`, `lost` and `reconnecting(after:)` after a drop,
    /// and so on, until `closed`. When events arrive faster than a screen can show them, the
    /// model changes at most once per frame (1/60 s) with the newest event; the last event is
    /// always shown. At the end the phase is ``RequestModel/Phase/succeeded(_:)`` with the last
    /// event (a 204 stopped it; ``RequestModel/Phase/idle`` if no event came), failed with the
    /// error, or idle after a cancel.
    ///
    /// The stream holds the model weakly: once the model is released, or another request took it
    /// over (a later `.bind(to: model)`), the stream is cancelled at its next event or connection
    /// change. Call ``RequestModel/cancel()`` to stop it at once
    /// (when the screen disappears). ``RequestModel/reload()`` opens the stream again after it
    /// ended, sending the last event ID.
    /// - Parameter model: The model to bind.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func bind(to model: RequestModel<ServerSentEvent>) -> Self {
        driveModel(model, items: events())
    }

    /// Binds a ``RequestModel`` to JSON lines (NDJSON): ``RequestModel/value`` is the latest
    /// line, decoded, and ``RequestModel/connection`` the state of the connection. Works as the
    /// event stream's `bind(to:)` does (throttled to a frame, held weakly, closed at the end),
    /// except that JSON lines are not reconnected: the stream is `closed` when the body ends.
    ///
    /// ```swift
    /// stream(JobProgressForm(job: id)).bind(to: job)
    /// ```
    /// - Parameters:
    ///   - model: The model to bind.
    ///   - decoder: The decoder to use.
    ///   - skippingInvalidLines: `true` to skip lines that do not decode; `false` (the default)
    ///     fails the model with a ``NetworkError/Kind/decodingFailed`` error naming the line.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func bind<Value: Decodable & Sendable>(
        to model: RequestModel<Value>, decoder: JSONDecoder = JSONDecoder(),
        skippingInvalidLines: Bool = false
    ) -> Self {
        driveModel(
            model,
            items: jsonLines(of: Value.self, decoder: decoder, skippingInvalidLines: skippingInvalidLines))
    }

    /// The one wiring of a model to a stream: a reader per run of the request (the first, and each
    /// after a retry or reload), its items and the connection's changes through one throttled
    /// relay, and the end of the run.
    @MainActor
    private func driveModel<Value: Sendable>(_ model: RequestModel<Value>, items: StreamSequence<Value>)
        -> Self
    {
        let core = self.core
        let driver = model.attach(cancel: { core.cancel() }, resend: { core.restart() })
        let relay = MainActorRelay<StreamModelUpdate<Value>>(
            minimumInterval: MainActorRelay<StreamModelUpdate<Value>>.frameInterval,
            merge: StreamModelUpdate.merge
        ) { [weak model, weak driver, weak core] update in
            // The screen is gone, or another request took the model over: nothing shows the stream.
            guard let model, model.isDriven(by: driver) else {
                core?.cancel()
                return
            }
            model.apply(update, from: driver)
        }
        sink.connections.add { relay.post(StreamModelUpdate(connection: $0)) }
        // The driver keeps what starts a run; the request's hooks hold the driver weakly.
        driver.startRun = { [weak model, weak driver] in
            guard let model, let driver else { return }
            model.begin(from: driver)
            model.connect(.connecting, from: driver)
            StreamModelReader.read(items, into: model, from: driver, through: relay)
        }
        driver.startRun?()
        core.onLaterAttemptStart { [weak driver] in driver?.startRun?() }
        return self
    }
}

/// What a stream hands a model in one main-actor step: the connection's changes in order, then
/// the newest item.
struct StreamModelUpdate<Value: Sendable>: Sendable {
    var connections: [StreamConnectionState] = []
    var value: Value?

    init(connection: StreamConnectionState) {
        connections = [connection]
    }

    init(value: Value) {
        self.value = value
    }

    /// Folds `new` into the update still waiting for the main actor: every change of the
    /// connection is kept, only the newest item.
    static func merge(_ pending: Self?, _ new: Self) -> Self {
        guard var merged = pending else { return new }
        merged.connections += new.connections
        if let value = new.value { merged.value = value }
        return merged
    }
}

/// Reads one run of a stream into a model.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
enum StreamModelReader {
    @MainActor
    static func read<Value: Sendable>(
        _ items: StreamSequence<Value>, into model: RequestModel<Value>, from driver: ModelDriver,
        through relay: MainActorRelay<StreamModelUpdate<Value>>
    ) {
        let isAbandoned: @Sendable () -> Bool = { [weak model] in model == nil }
        Task { [weak model, weak driver] in
            let failure = await readAll(items, relay: relay, isAbandoned: isAbandoned)
            await MainActor.run {
                relay.flush()  // the last item, before the end
                model?.end(failure, from: driver)
            }
        }
    }

    /// Reads until the run ends (or nothing wants the items any more); returns how it ended. The
    /// reader is gone when this returns, so it cannot cancel a later run.
    private static func readAll<Value: Sendable>(
        _ items: StreamSequence<Value>, relay: MainActorRelay<StreamModelUpdate<Value>>,
        isAbandoned: @Sendable () -> Bool
    ) async -> NetworkError? {
        do {
            for try await item in items {
                if isAbandoned() { return nil }  // leaving the loop cancels the request
                relay.post(StreamModelUpdate(value: item))
            }
            return nil
        } catch {
            return .building(error)  // the reader throws only NetworkError
        }
    }
}
