import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of one attempt's exchange: what the session's ``Transport`` reports goes to the
/// request, with the attempt's number (events of an attempt that is over are ignored).
final class AttemptEvents: TransportEvents, WaitingTaskRunner {
    let core: RequestCore
    let attempt: Int

    init(core: RequestCore, attempt: Int) {
        self.core = core
        self.attempt = attempt
    }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        let delivery = head.cacheDelivery ?? .network
        let head = ResponseHead(head)
        return core.taskDidReceive(
            head: head, expectedContentLength: head.expectedContentLength, delivery: delivery,
            attempt: attempt)
    }

    func receiveBody(_ body: Data) {
        core.taskDidReceive(data: body, attempt: attempt)
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        core.taskDidSendBodyData(totalSent: totalBytes, expected: expectedBytes, attempt: attempt)
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        core.redirect(response, to: request, attempt: attempt)
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        core.settings.credential(isProxy: isProxy, previousFailures: previousFailures)
    }

    func finish(_ error: (any Error)?) {
        core.taskDidComplete(error: error, attempt: attempt)
    }

    func runInWaitingTask(_ work: @escaping @Sendable () -> Void) -> Bool {
        core.runInWaitingTask(work)
    }
}

// The transport's events of each attempt (see `AttemptEvents`). A transport reports one attempt
// at a time, in order; stale attempts are ignored.
extension RequestCore {
    /// The response head arrived. `expectedContentLength` is read only for a download's progress;
    /// `delivery` says where the response came from (the network, or the cache layer).
    func taskDidReceive(
        head: ResponseHead, expectedContentLength: @autoclosure () -> Int64,
        delivery: CacheDelivery = .network, attempt: Int
    ) -> Bool {
        // Without a sink that opens for this head, a download's progress starts at zero of the
        // expected length, recorded in the same locked step.
        let http = sink == nil ? nil : head.httpURLResponse
        var start: TransferProgress?
        if http == nil, progressDirection == .download {
            let length = expectedContentLength()
            start = TransferProgress(completedBytes: 0, totalBytes: length >= 0 ? length : nil)
        }
        let (current, observers) = state.withLock { state -> (Bool, [ProgressObserver]?) in
            guard state.machine.responseReceived(attempt: attempt) == .record else { return (false, nil) }
            state.machine.updateRunning(attempt: attempt) { values in
                values.response = head
                values.delivery = delivery
            }
            return (true, start.flatMap { state.recordProgress($0, attempt: attempt) })
        }
        guard current else { return false }
        guard let sink, let http else {
            if let start, let observers {
                for observer in observers { observer(start, attempt) }
            }
            return true
        }
        switch sink.open(http, attempt: attempt) {
        case .write(let start):
            state.withLock { $0.machine.updateRunning(attempt: attempt) { $0.writesToSink = true } }
            updateProgress(start, attempt: attempt)
            return true
        case .collectInMemory:
            return true
        case .restart:
            restartAttemptNow(after: attempt)
            return false
        case .complete(let final):
            updateProgress(final, attempt: attempt)
            return true
        }
    }

    func taskDidReceive(data: Data, attempt: Int) {
        enum Target {
            /// Kept in memory, with the download's progress to record, if any.
            case memory(TransferProgress?)
            case sink
            case ignore
        }
        enum Delivery {
            case observers(TransferProgress, [ProgressObserver])
            case sink
            case none
        }
        let delivery = state.withLock { state -> Delivery in
            guard state.machine.dataReceived(attempt: attempt) == .record else { return .none }
            let target =
                state.machine.updateRunning(attempt: attempt) { values -> Target in
                    guard values.sinkFailure == nil else { return .ignore }
                    values.bytesReceived += Int64(data.count)
                    if values.writesToSink { return .sink }
                    if sink != nil, values.body.count + data.count > Self.errorBodyLimit { return .ignore }
                    // Most bodies come in one piece (a task that reports at its end): kept as is
                    // (unless a slice: an outcome's body starts at index 0).
                    if values.body.isEmpty, data.startIndex == 0 {
                        values.body = data
                    } else {
                        values.body.append(data)
                    }
                    guard progressDirection == .download, var progress = values.progress else {
                        return .memory(nil)
                    }
                    progress.completedBytes += Int64(data.count)
                    return .memory(progress)
                } ?? .ignore
            switch target {
            case .ignore, .memory(nil): return .none
            case .sink: return .sink
            case .memory(let progress?):
                // Recorded in this locked step; observers hear it outside the lock.
                guard let observers = state.recordProgress(progress, attempt: attempt) else { return .none }
                return .observers(progress, observers)
            }
        }
        switch delivery {
        case .none:
            return
        case .observers(let progress, let observers):
            for observer in observers { observer(progress, attempt) }
        case .sink:
            guard let sink else { return }
            do {
                let progress = try sink.write(data)
                updateProgress(progress, attempt: attempt)
            } catch {
                perform(state.withLock { $0.event { $0.sinkWriteFailed(attempt: attempt, error: error) } })
            }
        }
    }

    func taskDidSendBodyData(totalSent: Int64, expected: Int64?, attempt: Int) {
        state.withLock { state in
            state.machine.updateRunning(attempt: attempt) { $0.bytesSent = max($0.bytesSent, totalSent) }
        }
        guard progressDirection == .upload else { return }
        updateProgress(TransferProgress(completedBytes: totalSent, totalBytes: expected), attempt: attempt)
    }

    /// The transport asks whether to follow a redirect (see ``RedirectRule``). A redirect whose
    /// request fails Formwork's checks is not followed, and the attempt fails with that error once
    /// the transport reports its end.
    func redirect(_ response: HTTPURLResponse, to request: URLRequest, attempt: Int) -> URLRequest? {
        let (hasBody, policy) = state.withLock {
            (
                $0.machine.latest?.prepared.transportBody.hasBody ?? false,
                $0.machine.latest?.prepared.redirectPolicy
            )
        }
        do throws(NetworkError) {
            let next = try RedirectRule.follow(
                response, to: request, hasBody: hasBody,
                sensitiveHeaders: settings.sensitiveHeaders,
                policy: policy ?? settings.redirectPolicy)
            if let next {
                for monitor in settings.eventMonitors {
                    monitor.requestWillRedirect(id, after: response, to: next, attempt: attempt)
                }
            }
            return next
        } catch {
            settle(attempt: attempt, error)
            return nil
        }
    }

    func taskDidComplete(error: (any Error)?, attempt: Int) {
        /// The attempt's values, copied under the lock (the attempt itself is only touched there).
        struct Snapshot {
            let request: URLRequest
            let response: ResponseHead?
            let data: Data
            let wroteToSink: Bool
            let settled: NetworkError?
            let refreshesAfterAnswer: Bool
            let rules: ValidationRules
        }
        let snapshot = state.withLock { state -> Snapshot? in
            guard state.machine.isRunning(attempt: attempt), let values = state.machine.latest else {
                return nil
            }
            return Snapshot(
                request: values.prepared.urlRequest, response: values.response, data: values.body,
                wroteToSink: values.writesToSink, settled: values.settledFailure ?? values.sinkFailure,
                refreshesAfterAnswer: Self.isCacheThenNetworkAnswer(values),
                rules: state.validation)
        }
        guard let snapshot else { return }
        let (request, response, data, wroteToSink, rules) = (
            snapshot.request, snapshot.response, snapshot.data, snapshot.wroteToSink, snapshot.rules
        )
        let body = wroteToSink ? nil : data
        let failure: NetworkError?
        switch AttemptVerdict.of(
            settled: snapshot.settled, error: error, response: response, request: request, body: body,
            isCompleteOnDisk: self.sink?.isComplete(attempt: attempt) == true)
        {
        case .failed(let error):
            failure = error
        case .succeeded:
            failure = nil
        case .validate(let response):
            // Validators are app code: they run outside the lock.
            failure = rules.validate(
                request: request, response: response, data: body,
                defaultStatusCodes: settings.acceptableStatusCodes)
        }
        // The sink and the cache answer what only they know; the machine decides what follows.
        guard let failure else {
            let wantsNextSegment = sink?.wantsNextSegment() == true
            // The final progress is recorded in the step that ends the attempt; observers hear it
            // before the outcome is delivered.
            let (action, final) = state.withLock { state in
                let final =
                    wantsNextSegment
                    ? nil : state.recordFinalProgress(attempt: attempt, direction: progressDirection)
                return (
                    state.event { $0.attemptSucceeded(attempt: attempt, wantsNextSegment: wantsNextSegment) },
                    final
                )
            }
            if let (progress, observers) = final {
                for observer in observers { observer(progress, attempt) }
            }
            perform(action)
            if !wantsNextSegment, snapshot.refreshesAfterAnswer { refreshInBackground(after: attempt) }
            return
        }
        // A failed cached answer of cache-then-network is dropped like a miss (see
        // `isCacheThenNetworkAnswer`): it has no progress to pass on, no reconnection to ask about.
        let isCachedFirstAnswer = snapshot.refreshesAfterAnswer
        let dropsAnswer = isCachedFirstAnswer && !failure.isCancelled
        if !dropsAnswer { passOnLatestProgress(attempt: attempt) }
        let reconnectAfter =
            dropsAnswer || failure.isCancelled ? nil : sink?.reconnectDelay(after: failure)
        let action = state.withLock {
            $0.event {
                $0.attemptFailed(
                    attempt: attempt, failure: failure, isCachedFirstAnswer: isCachedFirstAnswer,
                    reconnectAfter: reconnectAfter)
            }
        }
        if let reconnectAfter, case .scheduleRetry = action, !settings.eventMonitors.isEmpty {
            reportReconnect(after: failure, response: response, delay: reconnectAfter)
        }
        perform(action, reported: failure)
    }

    /// Tells the monitors that a stream's connection ended and the stream reconnects: a clean end
    /// (the stream rule's own reason) is no error for them.
    private func reportReconnect(after failure: NetworkError, response: ResponseHead?, delay: TimeInterval) {
        let error = sink?.isCleanEnd(failure) == true ? nil : failure
        let response = response?.httpURLResponse
        for monitor in settings.eventMonitors {
            monitor.requestWillReconnect(id, after: response, error: error, delay: delay)
        }
    }

    /// When an attempt fails, observers hear the bytes it really moved: the last value may have
    /// been held back by the notification step (a bar would otherwise stop short of the cut).
    private func passOnLatestProgress(attempt: Int) {
        let pending = state.withLock { state -> (TransferProgress, [ProgressObserver])? in
            let progress = state.machine.updateRunning(attempt: attempt) { values -> TransferProgress? in
                guard let progress = values.progress, progress != values.notifiedProgress else { return nil }
                values.notifiedProgress = progress
                return progress
            }
            guard let progress = progress ?? nil else { return nil }
            return (progress, state.progressObservers)
        }
        guard let (progress, observers) = pending else { return }
        for observer in observers { observer(progress, attempt) }
    }
}
