import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The features around the transport are layers (`CachingTransport`, `CoalescingTransport`): the
// engine only says how the cache may use an attempt and which attempts may share an identical
// request's exchange, and asks the session's layered transport for a task, as for any other attempt. Each request keeps its own state
// machine, hooks, validation, decoding, retries and cancellation, and its own task.
extension RequestCore {
    /// Makes the task of an attempt through the session's layers (an attempt that may share an
    /// identical request's exchange says so), with this request's events. Called outside the
    /// request's lock (see `startTask(of:)`).
    /// - Parameters:
    ///   - values: The attempt: its number and its final request (read in place, not copied).
    ///   - atCompletion: Whether the exchange may report its whole response at its end (see
    ///     `deliversAtCompletion`).
    ///   - id: The request's id, when event monitors need it (and coalescing names its leader).
    /// - Returns: The task, not resumed.
    func makeTask(_ values: RequestAttempt, atCompletion: Bool, id: UUID?) -> any TransportTask {
        let attempt = values.number
        var request = values.prepared.transportRequest(
            isObserved: !atCompletion, pacing: sink?.pacing ?? .never)
        request.cacheUse = values.prepared.cache
        let monitors = settings.eventMonitors
        if !monitors.isEmpty, let id {
            // The layers know what is sent, and whether it joins an identical request's exchange.
            request.reportStart = { sent, leaderID in
                guard let leaderID else {
                    for monitor in monitors { monitor.requestDidStart(id, request: sent, attempt: attempt) }
                    return
                }
                for monitor in monitors {
                    monitor.requestDidCoalesce(id, request: sent, attempt: attempt, sharingWith: leaderID)
                }
            }
        }
        if let trust = settings.trust {
            var monitorReport: (@Sendable (TrustReport) -> Void)?
            if !monitors.isEmpty, let id {
                monitorReport = { report in
                    for monitor in monitors { monitor.requestDidReportTrust(id, report: report) }
                }
            }
            request.trust = TrustEvaluator(policy: trust, monitorReport: monitorReport)
        }
        if mayShare(values) {
            request.sharing = ExchangeSharing(formCachePolicy: values.prepared.cache?.policy, requestID: id)
        }
        return host.layeredTransport.makeTask(
            for: request, events: AttemptEvents(core: self, attempt: attempt))
    }

    /// Whether an attempt may share an identical request's exchange: the form and the session allow
    /// it, nothing goes to a sink (downloads), and its body is the request's own (none, for the GET
    /// and HEAD requests the layer shares; see ``CoalescingKey``).
    private func mayShare(_ values: RequestAttempt) -> Bool {
        guard values.prepared.coalesces, sink == nil, settings.coalescesRequests,
            case .inRequest = values.prepared.body
        else { return false }
        return true
    }

    /// Lets go of `task` (the attempt ended, or will be retried), cancelling it if `cancelling`.
    /// Cancelling a task that shares an identical request's exchange stops only its own events
    /// while others still want the exchange. (Later events of the task, if any, are ignored: they
    /// name an attempt that is over.)
    func releaseTask(_ task: any TransportTask, cancelling: Bool) {
        if cancelling { task.cancel() }
    }
}
