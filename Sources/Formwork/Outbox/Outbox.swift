import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A durable queue of requests: each is sent once the network allows, in order per lane, until
/// the server gives a final answer — even if the app is killed in between.
///
/// ```swift
/// let outbox = try Outbox(directory: appSupport.appendingPathComponent("outbox"), session: session)
/// try await outbox.enqueue(PostCommentForm(text: "Hello"))   // on disk when this returns
/// for await delivery in outbox.deliveries() { print(delivery.entry.id, delivery.result) }
/// ```
///
/// What it promises:
///
/// - **Nothing lost.** ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)``
///   returns once the request is on disk (written to a temporary file, `fsync`ed, renamed). A
///   request leaves the outbox only with a final answer: a success, a failure
///   ``Options/isPermanent`` calls final, its expiry, or ``cancel(_:)``. A new `Outbox` on the
///   same directory, in a later process, picks up what is pending; an entry found damaged is set
///   aside (``setAside``), never sent half.
/// - **Applied once, with the server's help.** Every request gets an `Idempotency-Key` at
///   enqueue time, sent with every attempt. A request in flight when the process died is sent
///   again with the same key: at least once on the wire, exactly once on a server that honours
///   the key.
/// - **Sent when it can be.** One request of a lane at a time, oldest first; after a failure
///   that is not final, the next attempt waits (``Options/backoff``, `Retry-After`), or starts
///   at once when the network comes back (watched with `NWPathMonitor` on Apple platforms) or
///   when ``retryNow()`` is called.
/// - **Sent as of now.** The session's adapters, authenticators, retriers and default headers
///   run when each attempt is sent, not at enqueue time: a token refreshed while the request
///   waited is the one used.
///
/// One outbox per directory: a second one, in this process or another, fails with
/// ``NetworkError/Reason/directoryInUse`` until the first is closed. The outbox keeps its
/// session, and keeps working while requests are pending; call ``close()`` to stop it.
public actor Outbox {
    /// The directory the outbox keeps its requests in.
    nonisolated let directory: URL
    /// The options it was opened with.
    nonisolated let options: Options
    /// The entries found damaged when the outbox was opened, moved aside and never sent.
    public nonisolated let setAside: [SetAsideEntry]

    let session: Session
    let store: OutboxStore
    let deliveryHub = OutboxBroadcast<Delivery>(keepsUnheard: 1_000)
    let statusHub = OutboxBroadcast<Status>(keepsUnheard: 1, replaysLatest: true)
    let messageTargets = Protected<[OutboxMessageTarget]>([])
    var lanes: [String: OutboxLane] = [:]
    var isClosed = false
    var networkWatch: OutboxNetworkWatch?

    /// Opens the outbox kept in `directory` (made if missing) and starts sending what is pending.
    /// - Parameters:
    ///   - directory: A directory for this outbox only, e.g. in Application Support (not
    ///     Caches: the system may empty it).
    ///   - session: The session that sends the requests.
    ///   - options: Limits, expiry, backoff and the rule for final failures.
    /// - Throws: ``NetworkError/Kind/outbox``: ``NetworkError/Reason/directoryInUse`` when
    ///   another outbox has the directory open, ``NetworkError/Reason/directoryUnusable`` when it
    ///   cannot be made or read.
    public init(directory: URL, session: Session, options: Options = Options()) throws(NetworkError) {
        let store = try OutboxStore(directory: directory)
        self.directory = directory
        self.options = options
        self.session = session
        self.store = store
        self.setAside = store.setAside.map(SetAsideEntry.init)
        statusHub.send(Status(pendingCount: store.records.count, phase: .idle))
        Task { await self.start() }
    }

    deinit {
        networkWatch?.stop()
    }

    /// An entry found damaged when the outbox was opened.
    public struct SetAsideEntry: Sendable, Equatable {
        /// The entry file's name.
        public let fileName: String
        /// What was wrong with it.
        public let reason: String
        /// Where it was moved.
        public let movedTo: URL

        init(_ setAside: OutboxStore.SetAside) {
            fileName = setAside.fileName
            reason = setAside.reason
            movedTo = setAside.movedTo
        }
    }

    /// Adds a request; returns once it is on disk. Its parameters are encoded now; the session's
    /// headers, adapters and authenticators are applied when it is sent.
    /// - Parameters:
    ///   - form: The request.
    ///   - lane: The lane: requests of one lane are sent one at a time, in the order enqueued;
    ///     lanes do not wait for each other.
    ///   - tag: A label handed back with the result (e.g. what the request was for).
    ///   - expiresAfter: How long the request stays worth sending; defaults to
    ///     ``Options/expiry``; `.infinity`: until it is sent.
    ///   - isolation: The caller's actor (filled in by the compiler): the form is read there.
    /// - Returns: The entry, with its id and `Idempotency-Key`.
    /// - Throws: A ``NetworkError``: the form cannot be built, or the outbox is full
    ///   (``NetworkError/Reason/full``) or closed (``NetworkError/Reason/closed``).
    @discardableResult
    public func enqueue(
        _ form: some RequestFormable, lane: String = "default", tag: String? = nil,
        expiresAfter: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Entry {
        let parts = try OutboxRequestParts(
            baseURL: session.configuration.baseURL, FormSnapshot(form), key: IdempotencyKey.make(),
            lane: lane, tag: tag,
            expiresAt: expiryDate(expiresAfter))
        return try await add(parts)
    }

    /// Adds an upload of bytes; returns once it is on disk.
    /// - Parameters:
    ///   - form: The upload.
    ///   - lane: The lane (see ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)``).
    ///   - tag: A label handed back with the result.
    ///   - expiresAfter: How long the request stays worth sending.
    ///   - isolation: The caller's actor (filled in by the compiler).
    /// - Returns: The entry.
    /// - Throws: A ``NetworkError``, as
    ///   ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)`` does.
    @discardableResult
    public func enqueue(
        _ form: some UploadDataFormable, lane: String = "default", tag: String? = nil,
        expiresAfter: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Entry {
        let parts = try OutboxRequestParts(
            baseURL: session.configuration.baseURL, upload: FormSnapshot(base: form), data: form.data,
            file: nil,
            defaultContentType: "application/octet-stream", key: IdempotencyKey.make(), lane: lane, tag: tag,
            expiresAt: expiryDate(expiresAfter))
        return try await add(parts)
    }

    /// Adds an upload of a file; returns once the outbox holds its own copy of the file on disk
    /// (the app may delete its file then), kept until the request ends.
    /// - Parameters:
    ///   - form: The upload.
    ///   - lane: The lane (see ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)``).
    ///   - tag: A label handed back with the result.
    ///   - expiresAfter: How long the request stays worth sending.
    ///   - isolation: The caller's actor (filled in by the compiler).
    /// - Returns: The entry.
    /// - Throws: A ``NetworkError``, as
    ///   ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)`` does, or
    ///   ``NetworkError/Kind/fileOperationFailed`` when the file cannot be read.
    @discardableResult
    public func enqueue(
        _ form: some UploadFileFormable, lane: String = "default", tag: String? = nil,
        expiresAfter: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Entry {
        let file = form.fileURL
        let parts = try OutboxRequestParts(
            baseURL: session.configuration.baseURL, upload: FormSnapshot(base: form), data: nil, file: file,
            defaultContentType: MIMEType.guess(forPathExtension: file.pathExtension),
            key: IdempotencyKey.make(),
            lane: lane, tag: tag, expiresAt: expiryDate(expiresAfter))
        return try await add(parts)
    }

    /// Adds a `multipart/form-data` upload; returns once its body, encoded now, is on disk (the
    /// files of its parts are read here: the app may delete them afterwards).
    /// - Parameters:
    ///   - form: The upload.
    ///   - lane: The lane (see ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)``).
    ///   - tag: A label handed back with the result.
    ///   - expiresAfter: How long the request stays worth sending.
    ///   - isolation: The caller's actor (filled in by the compiler).
    /// - Returns: The entry.
    /// - Throws: A ``NetworkError``, as
    ///   ``enqueue(_:lane:tag:expiresAfter:isolation:)-(RequestFormable,_,_,_,_)`` does, or the
    ///   multipart body's own errors (``NetworkError/Kind/multipartEncodingFailed``,
    ///   ``NetworkError/Kind/fileOperationFailed``).
    @discardableResult
    public func enqueue(
        _ form: some UploadMultipartFormable, lane: String = "default", tag: String? = nil,
        expiresAfter: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Entry {
        let multipart = form.multipartFormData
        let (threshold, directory) = (form.encodingMemoryThreshold, form.encodingDirectory)
        var parts = try OutboxRequestParts(
            baseURL: session.configuration.baseURL, upload: FormSnapshot(base: form), data: nil, file: nil,
            defaultContentType: multipart.contentType,
            key: IdempotencyKey.make(), lane: lane, tag: tag, expiresAt: expiryDate(expiresAfter))
        parts.setContentType(multipart.contentType)
        let body: EncodedMultipartBody
        do {
            body = try await offload {
                try multipart.encodedBody(memoryThreshold: threshold, temporaryDirectory: directory)
            }
        } catch let error as NetworkError {
            throw error
        } catch {
            throw NetworkError(
                .requestBuildFailed, failureReason: "The multipart body could not be built: \(error)",
                underlyingError: error)
        }
        defer { body.removeTemporaryFile() }
        switch body {
        case .data(let data): parts.bodyData = data
        case .temporaryFile(let url, _): parts.bodyFile = url
        }
        return try await add(parts)
    }

    /// A download cannot wait in an outbox: its answer would be delivered in memory, not to its
    /// destination. Download when the app is in use (``Session/download(_:isolation:)``), or
    /// enqueue the request that makes the server prepare what is downloaded later.
    @available(*, unavailable, message: "A download cannot be enqueued; download it when online")
    @discardableResult
    public func enqueue(
        _ form: some DownloadFormable, lane: String = "default", tag: String? = nil,
        expiresAfter: TimeInterval? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws(NetworkError) -> Entry {
        fatalError("unavailable")
    }

    /// The requests still pending, oldest first.
    /// - Returns: The entries.
    public func pending() -> [Entry] {
        store.records.map(Entry.init)
    }

    /// What the outbox is doing, now and at each change (the current status comes first).
    /// - Returns: A stream that ends when the outbox is closed.
    public nonisolated func statusUpdates() -> AsyncStream<Status> {
        statusHub.subscribe()
    }

    /// The results of requests as they end. Results that end while nobody listens (up to 1,000)
    /// are kept for the first listener.
    /// - Returns: A stream that ends when the outbox is closed.
    public nonisolated func deliveries() -> AsyncStream<Delivery> {
        deliveryHub.subscribe()
    }

    /// Ends a pending request now: it leaves the outbox and is delivered as cancelled. A request
    /// on the wire is cancelled too, though the server may already have applied it.
    /// - Parameter id: The request's id.
    /// - Returns: Whether it was pending.
    @discardableResult
    public func cancel(_ id: UUID) -> Bool {
        guard let record = store.records.first(where: { $0.id == id }) else { return false }
        store.remove(id)
        let lane = lanes[record.lane]
        if let inFlight = lane?.inFlight, inFlight.id == id { inFlight.request.cancel() }
        let cancelled = NetworkError(
            .cancelled, failureReason: "The request was cancelled with Outbox.cancel(_:).")
        deliver(record, .failure(cancelled), response: nil, body: nil, attempts: lane?.attempts(of: id) ?? 0)
        if lane?.currentID == id { wake(record.lane) }
        publishStatus()
        return true
    }

    /// Ends every backoff wait: the next attempt of each waiting request starts now rather than
    /// when its wait would have ended, e.g. when the app comes to the foreground or the user asks
    /// to try again. Requests already on the wire are left alone.
    public func retryNow() {
        for lane in lanes.keys { wake(lane) }
    }

    /// Stops sending and releases the directory. A request on the wire is cancelled and stays
    /// pending: the next outbox on the directory sends it again, with the same key.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for (name, lane) in lanes {
            _ = lane.inFlight?.request.cancel()
            wake(name)
        }
        for task in lanes.values.compactMap(\.task) { await task.value }
        networkWatch?.stop()
        networkWatch = nil
        store.close()
        statusHub.send(Status(pendingCount: store.records.count, phase: .closed))
        statusHub.finish()
        deliveryHub.finish()
    }

    private nonisolated func expiryDate(_ expiresAfter: TimeInterval?) -> Date? {
        // `.infinity` (or any non-finite value): never.
        (expiresAfter ?? options.expiry).flatMap { $0.isFinite ? Date(timeIntervalSinceNow: $0) : nil }
    }

    private func add(_ parts: OutboxRequestParts) throws(NetworkError) -> Entry {
        guard !isClosed else {
            throw NetworkError(
                .outbox, failureReason: "The outbox is closed.", details: .init(reason: .closed))
        }
        let record = try store.add(
            parts.record, bodyData: parts.bodyData, bodyFile: parts.bodyFile,
            limits: (options.maximumCount, options.maximumBytes))
        startLane(record.lane)
        publishStatus()
        return Entry(record)
    }
}
