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
        let current = state.withLock { state -> Bool in
            guard state.machine.responseReceived(attempt: attempt) == .record else { return false }
            state.machine.updateRunning(attempt: attempt) { values in
                values.response = head
                values.delivery = delivery
            }
            return true
        }
        guard current else { return false }
        guard let sink, let http = head.httpURLResponse else {
            if progressDirection == .download {
                let length = expectedContentLength()
                let total = length >= 0 ? length : nil
                updateProgress(TransferProgress(completedBytes: 0, totalBytes: total), attempt: attempt)
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
            case memory(TransferProgress?)
            case sink
            case ignore
        }
        let target = state.withLock { state -> Target in
            guard state.machine.dataReceived(attempt: attempt) == .record else { return .ignore }
            return state.machine.updateRunning(attempt: attempt) { values -> Target in
                guard values.sinkFailure == nil else { return .ignore }
                values.bytesReceived += Int64(data.count)
                if values.writesToSink { return .sink }
                if sink != nil, values.body.count + data.count > Self.errorBodyLimit { return .ignore }
                values.body.append(data)
                guard progressDirection == .download, var progress = values.progress else {
                    return .memory(nil)
                }
                progress.completedBytes += Int64(data.count)
                return .memory(progress)
            } ?? .ignore
        }
        switch target {
        case .ignore:
            return
        case .memory(let progress):
            if let progress { updateProgress(progress, attempt: attempt) }
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
            if !wantsNextSegment, let final = finalProgress(attempt: attempt) {
                updateProgress(final, attempt: attempt)
            }
            perform(
                state.withLock {
                    $0.event { $0.attemptSucceeded(attempt: attempt, wantsNextSegment: wantsNextSegment) }
                })
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

    /// On success, the last progress update observers hear must equal the total (a chunked body
    /// has none until now; a throttled last update may not have been passed on).
    private func finalProgress(attempt: Int) -> TransferProgress? {
        state.withLock { state in
            state.machine.updateRunning(attempt: attempt) { values -> TransferProgress? in
                if values.progress == nil, progressDirection == .upload, let sent = values.prepared.bodyLength
                {
                    // No progress came while sending (a transport that reports the whole exchange
                    // at its end): the whole body was sent.
                    values.bytesSent = max(values.bytesSent, sent)
                    values.progress = TransferProgress(completedBytes: sent, totalBytes: sent)
                }
                guard let progress = values.progress else { return nil }
                let final = TransferProgress(
                    completedBytes: progress.completedBytes, totalBytes: progress.completedBytes)
                if progress == final, values.notifiedProgress == final { return nil }
                values.notifiedProgress = nil  // so that the final value is passed on
                return final
            } ?? nil
        }
    }
}
