import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One lane of an outbox while it has work: its task, the request it is on, and its wait.
struct OutboxLane {
    var task: Task<Void, Never>?
    var phase: Outbox.Status.Phase = .sending
    /// The request being worked on (sent or waited for), and its attempts so far.
    var currentID: UUID?
    var currentAttempts = 0
    /// The request on the wire.
    var inFlight: (id: UUID, request: Request)?
    /// The wait between attempts: who to resume, which wait it is, and its timer.
    var wake: CheckedContinuation<Void, Never>?
    var waitID: UUID?
    var timer: Task<Void, Never>?

    func attempts(of id: UUID) -> Int { currentID == id ? currentAttempts : 0 }
}

extension Outbox {
    /// Starts watching the network and sends what was pending when the outbox opened.
    func start() {
        guard !isClosed else { return }
        networkWatch = OutboxNetworkWatch { [weak self] in
            Task { await self?.retryNow() }
        }
        for record in store.records { startLane(record.lane) }
    }

    /// Starts the lane's task unless it runs.
    func startLane(_ name: String) {
        guard !isClosed, lanes[name] == nil else { return }
        lanes[name] = OutboxLane()
        lanes[name]?.task = Task { await self.runLane(name) }
    }

    /// Sends the lane's requests, oldest first, each until it ends; then the lane stops.
    private func runLane(_ name: String) async {
        while !isClosed, let record = store.records.first(where: { $0.lane == name }) {
            lanes[name]?.currentID = record.id
            lanes[name]?.currentAttempts = 0
            await sendUntilFinal(record)
        }
        // No suspension since the last look: an enqueue for this lane starts a new task.
        lanes[name] = nil
        publishStatus()
    }

    /// Sends `record` until the server gives a final answer, it expires, is cancelled, or the
    /// outbox closes (then it stays pending).
    private func sendUntilFinal(_ record: OutboxRecord) async {
        let lane = record.lane
        while !isClosed, isPending(record.id) {
            let attempts = lanes[lane]?.currentAttempts ?? 0
            if let expiresAt = record.expiresAt, expiresAt <= Date() {
                let expired = NetworkError(
                    .outbox, failureReason: "The request expired before the server gave a final answer.",
                    details: .init(reason: .expired))
                finish(record, .failure(expired), response: nil, body: nil, attempts: attempts)
                return
            }
            lanes[lane]?.currentAttempts = attempts + 1
            setPhase(lane, .sending)
            let response = await attempt(record)
            guard !isClosed, isPending(record.id) else { return }
            switch response.result {
            case .success(let data):
                finish(
                    record, .success(data), response: response.response, body: data, attempts: attempts + 1)
                return
            case .failure(let error) where options.isPermanent(error):
                finish(
                    record, .failure(error), response: response.response, body: response.data,
                    attempts: attempts + 1)
                return
            case .failure(let error):
                var delay = waitTime(afterAttempt: attempts + 1, error: error)
                if let expiresAt = record.expiresAt {
                    delay = min(delay, max(0, expiresAt.timeIntervalSinceNow))
                }
                await wait(lane, until: Date(timeIntervalSinceNow: delay))
            }
        }
    }

    /// One attempt through the session, with the request's key.
    private func attempt(_ record: OutboxRecord) async -> DataResponse<Data> {
        let headers = HTTPHeaders(record.headers.map { HTTPHeader(name: $0.name, value: $0.value) })
        let method = HTTPMethod(rawValue: record.method)
        let request: any DataResponding
        switch record.body {
        case .none:
            request = session.request(
                OutboxPlainForm(
                    url: record.url, method: method, headers: headers, idleTimeout: record.timeout)
            )
            .idempotencyKey(record.idempotencyKey)
        case .inline(let data):
            request = session.upload(
                OutboxDataForm(
                    url: record.url, method: method, headers: headers, idleTimeout: record.timeout, data: data
                )
            )
            .idempotencyKey(record.idempotencyKey)
        case .file:
            let file = store.bodyFileURL(for: record.id)
            request = session.upload(
                OutboxFileForm(
                    url: record.url, method: method, headers: headers, idleTimeout: record.timeout,
                    fileURL: file)
            ).idempotencyKey(record.idempotencyKey)
        }
        let monitors = session.settings.eventMonitors
        if !monitors.isEmpty {
            // Before the request starts: it starts once this actor moves on.
            let attempt = lanes[record.lane]?.attempts(of: record.id) ?? 0
            for monitor in monitors {
                monitor.requestWillSendOutboxEntry(request.id, entryID: record.id, outboxAttempt: attempt)
            }
        }
        lanes[record.lane]?.inFlight = (record.id, request)
        let response = await request.response()
        if lanes[record.lane]?.inFlight?.id == record.id { lanes[record.lane]?.inFlight = nil }
        return response
    }

    /// How long to wait after a failed attempt: the backoff's jittered delay, or the server's
    /// `Retry-After` on a `429` or `503` when the backoff honours it (at most its maximum delay).
    private func waitTime(afterAttempt attempt: Int, error: NetworkError) -> TimeInterval {
        let backoff = options.backoff
        if backoff.honoursRetryAfter, let status = error.statusCode, status == 429 || status == 503,
            let value = error.response?.value(forHTTPHeaderField: "Retry-After"),
            let after = RetryPolicy.retryAfter(value, now: Date())
        {
            return min(after, backoff.maximumDelay)
        }
        let range = backoff.delayRange(forRetry: attempt - 1)
        return Double.random(in: range)
    }

    /// Waits until `date`, or until ``wake(_:)`` (the network came back, ``retryNow()``,
    /// ``cancel(_:)``, ``close()``).
    private func wait(_ lane: String, until date: Date) async {
        guard !isClosed else { return }
        setPhase(lane, .waiting(until: date))
        let waitID = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lanes[lane]?.wake = continuation
            lanes[lane]?.waitID = waitID
            lanes[lane]?.timer = Task { [weak self] in
                await sleep(seconds: date.timeIntervalSinceNow)
                guard !Task.isCancelled else { return }
                await self?.wake(lane, waitID: waitID)
            }
        }
    }

    /// Ends the lane's wait, if it waits (and, with `waitID`, only that wait).
    func wake(_ lane: String, waitID: UUID? = nil) {
        guard let continuation = lanes[lane]?.wake else { return }
        if let waitID, lanes[lane]?.waitID != waitID { return }
        lanes[lane]?.wake = nil
        lanes[lane]?.waitID = nil
        lanes[lane]?.timer?.cancel()
        lanes[lane]?.timer = nil
        continuation.resume()
    }

    private func isPending(_ id: UUID) -> Bool {
        store.records.contains { $0.id == id }
    }

    /// The request ended: it leaves the outbox, then its result is delivered.
    private func finish(
        _ record: OutboxRecord, _ result: Result<Data, NetworkError>, response: HTTPURLResponse?, body: Data?,
        attempts: Int
    ) {
        store.remove(record.id)
        deliver(record, result, response: response, body: body, attempts: attempts)
        publishStatus()
    }

    /// Hands a result to the listeners and to the app's message targets.
    func deliver(
        _ record: OutboxRecord, _ result: Result<Data, NetworkError>, response: HTTPURLResponse?, body: Data?,
        attempts: Int
    ) {
        let delivery = Delivery(
            entry: Entry(record), result: result, response: response, attempts: attempts, body: body)
        deliveryHub.send(delivery)
        let targets = messageTargets.withLock { $0 }
        guard !targets.isEmpty else { return }
        Task { @MainActor in
            for target in targets { target.show(delivery) }
        }
    }

    private func setPhase(_ lane: String, _ phase: Status.Phase) {
        guard lanes[lane] != nil else { return }
        lanes[lane]?.phase = phase
        publishStatus()
    }

    /// Sends the status: sending if any lane sends, else waiting until the earliest wait ends.
    func publishStatus() {
        let phases = lanes.values.map(\.phase)
        var phase = Status.Phase.idle
        if isClosed {
            phase = .closed
        } else if store.records.isEmpty {
            phase = .idle  // the last request just ended; its lane is finishing
        } else if phases.contains(.sending) {
            phase = .sending
        } else {
            let dates = phases.compactMap { phase -> Date? in
                if case .waiting(let date) = phase { return date }
                return nil
            }
            if let earliest = dates.min() { phase = .waiting(until: earliest) }
        }
        statusHub.send(Status(pendingCount: store.records.count, phase: phase))
    }
}
