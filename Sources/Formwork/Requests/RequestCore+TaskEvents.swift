import Foundation

// The URLSession task events, routed here by the session's delegate. They arrive on the
// session's serial delegate queue, one attempt at a time; stale attempts are ignored.
extension RequestCore {
    func taskDidReceive(response: URLResponse, attempt: Int) -> URLSession.ResponseDisposition {
        let http = response as? HTTPURLResponse
        let current = state.withLock { state -> Bool in
            guard state.machine.responseReceived(attempt: attempt) == .record else { return false }
            state.response = http
            return true
        }
        guard current else { return .cancel }
        guard let sink, let http else {
            let total = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
            if progressDirection == .download {
                updateProgress(TransferProgress(completedBytes: 0, totalBytes: total), attempt: attempt)
            }
            return .allow
        }
        switch sink.open(http, attempt: attempt) {
        case .write(let start):
            state.withLock { $0.writesToSink = true }
            updateProgress(start, attempt: attempt)
            return .allow
        case .collectInMemory:
            return .allow
        case .restart:
            restartAttemptNow(after: attempt)
            return .cancel
        case .complete(let final):
            updateProgress(final, attempt: attempt)
            return .allow
        }
    }

    func taskDidReceive(data: Data, attempt: Int) {
        enum Target {
            case memory(TransferProgress?)
            case sink
            case ignore
        }
        let target = state.withLock { state -> Target in
            guard state.machine.dataReceived(attempt: attempt) == .record, state.sinkFailure == nil else {
                return .ignore
            }
            state.bytesReceived += Int64(data.count)
            if state.writesToSink { return .sink }
            if sink != nil, state.data.count + data.count > Self.errorBodyLimit { return .ignore }
            state.data.append(data)
            guard progressDirection == .download, var progress = state.progress else { return .memory(nil) }
            progress.completedBytes += Int64(data.count)
            return .memory(progress)
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
                let task = state.withLock { state -> URLSessionTask? in
                    state.sinkFailure = error
                    return state.task
                }
                task?.cancel()
            }
        }
    }

    func taskDidSendBodyData(totalSent: Int64, expected: Int64, attempt: Int) {
        state.withLock { state in
            if state.machine.attempt == attempt { state.bytesSent = max(state.bytesSent, totalSent) }
        }
        guard progressDirection == .upload else { return }
        let total: Int64? = expected > 0 ? expected : nil
        updateProgress(TransferProgress(completedBytes: totalSent, totalBytes: total), attempt: attempt)
    }

    /// URLSession must send a streamed body again (Apple: a 307/308 redirect, an authentication
    /// challenge, a re-sent request): a fresh stream from the form's factory, never the one
    /// already read. If the form cannot make one, the attempt ends with its error.
    func taskNeedsNewBodyStream(attempt: Int) -> InputStream? {
        let make = state.withLock { state -> (@Sendable () throws -> InputStream)? in
            guard state.machine.isRunning(attempt: attempt) else { return nil }
            return state.prepared?.makeBodyStream
        }
        guard let make else { return nil }
        do {
            return try make()
        } catch {
            let task = state.withLock { state -> URLSessionTask? in
                // Reported in place of URLSession's own error, like a failing sink.
                state.sinkFailure = NetworkError.building(error)
                return state.task
            }
            task?.cancel()
            return nil
        }
    }

    /// The whole response of a task made with a completion handler (see
    /// `deliversAtCompletion`): recorded as the delegate's events would have, then completed.
    func taskDidFinish(data: Data?, response: URLResponse?, error: (any Error)?, attempt: Int) {
        let body = data ?? Data()
        typealias Recorded = (progress: TransferProgress?, observers: [ProgressObserver])
        // One locked step records the response and, on success, the final progress.
        let recorded = state.withLock { state -> Recorded? in
            guard state.machine.dataReceived(attempt: attempt) == .record else { return nil }
            state.response = response as? HTTPURLResponse
            state.data = body
            state.bytesReceived = Int64(body.count)
            guard error == nil else { return (nil, []) }
            // What a progress observer added meanwhile may still hear: the final value.
            let final: TransferProgress
            switch progressDirection {
            case .download:
                final = TransferProgress(completedBytes: Int64(body.count), totalBytes: Int64(body.count))
            case .upload:
                guard let sent = state.prepared?.bodyLength else { return (nil, []) }
                state.bytesSent = sent
                final = TransferProgress(completedBytes: sent, totalBytes: sent)
            }
            return (final, state.recordProgress(final, attempt: attempt) ?? [])
        }
        guard let recorded else { return }
        if let progress = recorded.progress {
            for observer in recorded.observers { observer(progress, attempt) }
        }
        taskDidComplete(error: error, attempt: attempt)
    }

    func taskDidComplete(error: (any Error)?, attempt: Int) {
        let (error, settledFailure) = settledEnd(of: attempt, error: settleWithCache(error, attempt: attempt))
        typealias Snapshot = (URLRequest?, HTTPURLResponse?, Data, ValidationRules, NetworkError?, Bool)
        let snapshot = state.withLock { state -> Snapshot? in
            guard state.machine.isRunning(attempt: attempt) else { return nil }
            return (
                state.prepared?.urlRequest, state.response, state.data, state.validation, state.sinkFailure,
                state.writesToSink
            )
        }
        guard let (request, response, data, rules, sinkFailure, wroteToSink) = snapshot else { return }
        let failure: NetworkError?
        if let settled = settledFailure ?? sinkFailure {
            failure = settled
        } else if let error {
            failure = .transport(error, request: request, response: response, data: wroteToSink ? nil : data)
        } else if response != nil, sink?.isComplete(attempt: attempt) == true {
            failure = nil  // the body on disk is complete: this answer (a 416) only proved it
        } else if let response {
            // Validators are app code: they run outside the lock.
            failure = rules.validate(
                request: request, response: response, data: wroteToSink ? nil : data,
                defaultStatusCodes: session.configuration.acceptableStatusCodes)
        } else {
            failure = NetworkError(
                .transport, failureReason: "The server's response was not an HTTP response.",
                underlyingError: URLError(.badServerResponse), request: request, data: data)
        }
        guard let failure else {
            if let file = sink as? DownloadFile, file.wantsNextSegment() {
                restartAttemptNow(after: attempt)
                return
            }
            if let final = finalProgress(attempt: attempt) {
                updateProgress(final, attempt: attempt)
            }
            perform(state.withLock { $0.event { $0.completed(attempt: attempt, failure: nil) } })
            return
        }
        if !failure.isCancelled, dropsFailedCachedAnswer(attempt: attempt) {
            restartAttemptNow(after: attempt)
            return
        }
        passOnLatestProgress(attempt: attempt)
        perform(
            state.withLock { $0.event { $0.completed(attempt: attempt, failure: failure) } },
            reported: failure)
    }

    /// When an attempt fails, observers hear the bytes it really moved: the last value may have
    /// been held back by the notification step (a bar would otherwise stop short of the cut).
    private func passOnLatestProgress(attempt: Int) {
        let pending = state.withLock { state -> (TransferProgress, [ProgressObserver])? in
            guard state.machine.attempt == attempt, let progress = state.progress,
                progress != state.notifiedProgress
            else { return nil }
            state.notifiedProgress = progress
            return (progress, state.progressObservers)
        }
        guard let (progress, observers) = pending else { return }
        for observer in observers { observer(progress, attempt) }
    }

    /// On success, the last progress update observers hear must equal the total (a chunked body
    /// has none until now; a throttled last update may not have been passed on).
    private func finalProgress(attempt: Int) -> TransferProgress? {
        state.withLock { state in
            guard let progress = state.progress else { return nil }
            let final = TransferProgress(
                completedBytes: progress.completedBytes, totalBytes: progress.completedBytes)
            if progress == final, state.notifiedProgress == final { return nil }
            state.notifiedProgress = nil  // so that the final value is passed on
            return final
        }
    }
}
