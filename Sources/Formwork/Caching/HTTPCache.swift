import Foundation

/// Formwork's HTTP cache (RFC 9111, with RFC 5861's `stale-while-revalidate` and
/// `stale-if-error`): the same rules on every platform, in memory and optionally on disk.
///
/// Set one on a session with ``Session/Configuration/cache``; each form picks how it uses it with
/// ``Formable/cachePolicy``. Both tiers are bounded by bytes and drop the least recently used
/// responses first. The disk tier lives in a directory the app chooses and survives restarts;
/// every entry file is written to a temporary file and renamed into place, and carries its
/// lengths and a checksum, so a process killed mid-write never leaves an entry that is served:
/// a damaged entry is deleted when it is found.
///
/// Only `GET` data requests are cached (downloads and uploads are not). See the Caching article
/// for the rules, privacy and the differences from `URLCache`.
///
/// ```swift
/// let cache = try HTTPCache(directory: cachesDirectory.appendingPathComponent("api-cache"))
/// let api = Session { $0.cache = cache }
/// ```
public final class HTTPCache: Sendable {
    /// The extension of entry files.
    static let entryExtension = ".fwcache"
    /// The extension of files being written (deleted when found at start: a killed writer's).
    static let temporaryExtension = ".fwtmp"

    /// The directory of the disk tier, or `nil` for a memory-only cache.
    let directory: URL?
    /// The most bytes the memory tier holds.
    let memoryCapacity: Int
    /// The most bytes the disk tier holds (0 without a directory).
    let diskCapacity: Int

    struct State {
        var memory: [String: StoredEntry] = [:]
        var memoryOrder = LRUIndex<String>()
        var diskOrder = LRUIndex<String>()
        /// File names (both tiers) by resource hash.
        var names: [String: Set<String>] = [:]
        /// Keys whose background revalidation is under way.
        var revalidating: Set<String> = []

        /// Keeps an entry in memory as the most recently used, then drops the least recently
        /// used ones beyond `capacity` (an entry over a quarter of it is not kept in memory).
        mutating func keepInMemory(_ stored: StoredEntry, name: String, capacity: Int, hasDisk: Bool) {
            let cost = stored.entry.cost
            guard cost <= capacity / 4 else {
                memory[name] = nil
                memoryOrder.remove(name)
                return
            }
            memory[name] = stored
            memoryOrder.touch(name, size: cost)
            for evicted in memoryOrder.evict(toFit: capacity) {
                memory[evicted] = nil
                // Without a disk tier the entry is gone; with one, the file still holds it.
                if !hasDisk { names[String(evicted.prefix(32))]?.remove(evicted) }
            }
        }
    }

    /// An entry with the key it was stored under.
    struct StoredEntry: Sendable {
        let key: CacheKey
        let entry: CacheEntry
    }

    let state = Protected(State())
    /// Runs every file operation of the disk tier, in order (the start-up scan first).
    let diskQueue: DispatchQueue?
    /// Runs once, at the start of the next claim of a background revalidation: tests force the
    /// interleaving of a stale hit's lookup and its claim with it.
    let beforeNextClaim = Protected<(@Sendable () -> Void)?>(nil)

    /// Creates a cache that keeps responses in memory only.
    /// - Parameter memoryCapacity: The most bytes held; defaults to 8 MiB.
    public init(memoryCapacity: Int = 8 << 20) {
        self.directory = nil
        self.memoryCapacity = max(0, memoryCapacity)
        self.diskCapacity = 0
        self.diskQueue = nil
    }

    /// Creates a cache that keeps responses in memory and in `directory`, which it creates if
    /// needed. Responses stored there by an earlier run are used; damaged files are deleted.
    /// - Parameters:
    ///   - directory: A directory for the cache alone (everything in it may be deleted), e.g. in
    ///     the app's caches directory.
    ///   - memoryCapacity: The most bytes held in memory; defaults to 8 MiB.
    ///   - diskCapacity: The most bytes held on disk; defaults to 64 MiB.
    /// - Throws: ``NetworkError`` (``NetworkError/Kind/fileOperationFailed``) when the directory
    ///   cannot be created.
    public init(directory: URL, memoryCapacity: Int = 8 << 20, diskCapacity: Int = 64 << 20)
        throws(NetworkError)
    {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw NetworkError(
                .fileOperationFailed,
                failureReason: "The cache directory \(directory.path) could not be created: \(error)",
                underlyingError: error)
        }
        self.directory = directory
        self.memoryCapacity = max(0, memoryCapacity)
        self.diskCapacity = max(0, diskCapacity)
        let queue = DispatchQueue(label: "org.formwork.cache.disk")
        self.diskQueue = queue
        queue.async { self.scanDirectory() }
    }

    // MARK: Public maintenance

    /// Removes every stored response, in memory and on disk.
    public func removeAll() async {
        state.withLock { state in
            state.memory = [:]
            state.memoryOrder = LRUIndex()
            state.names = [:]
        }
        await onDisk { cache in
            for name in cache.fileNames() { cache.deleteFile(name) }
            cache.state.withLock { $0.diskOrder = LRUIndex() }
        }
    }

    /// Removes the stored responses for a URL (every credential and variant), as a successful
    /// `POST`, `PUT`, `PATCH` or `DELETE` to it does.
    /// - Parameter url: The absolute URL, as requests send it.
    public func removeResponses(for url: URL) async {
        invalidate([url.absoluteString])
        await onDisk { _ in }
    }

    /// The bytes held in memory now.
    var memoryUsage: Int { state.withLock { $0.memoryOrder.totalSize } }

    /// The bytes held on disk, once written (writes reach the disk in the background).
    public var diskUsage: Int { state.withLock { $0.diskOrder.totalSize } }

    /// Waits until every write and removal asked for so far has reached the disk.
    func waitForPendingWrites() async {
        await onDisk { _ in }
    }

    // MARK: Reading and writing (Formwork's engine)

    /// The stored response for a request: same method, URL and credential, and the same values
    /// of the fields its `Vary` names; a complete response before a partial one. Looks in memory,
    /// then on disk (deleting damaged files).
    func entry(for key: CacheKey, request: HTTPHeaders) async -> CacheEntry? {
        let hash = key.resourceHash
        let inMemory = state.withLock { state -> CacheEntry? in
            var partial: (name: String, entry: CacheEntry)?
            for name in (state.names[hash] ?? []).sorted() {
                guard let stored = state.memory[name], stored.key == key,
                    CacheVary.matches(stored.entry.vary, request: request)
                else { continue }
                if stored.entry.statusCode == 206 {
                    partial = partial ?? (name, stored.entry)
                    continue
                }
                state.memoryOrder.touch(name)
                state.diskOrder.touch(name)
                return stored.entry
            }
            guard let partial else { return nil }
            state.memoryOrder.touch(partial.name)
            state.diskOrder.touch(partial.name)
            return partial.entry
        }
        if let inMemory { return inMemory }
        guard diskQueue != nil else { return nil }
        return await onDisk { cache in cache.readFromDisk(key, request: request) }
    }

    /// Stores an entry in memory now and on disk soon (in the order asked).
    func store(_ entry: CacheEntry, for key: CacheKey) {
        let name = key.fileName(vary: entry.vary, partial: entry.statusCode == 206)
        state.withLock { state in
            state.names[key.resourceHash, default: []].insert(name)
            state.keepInMemory(
                StoredEntry(key: key, entry: entry), name: name, capacity: memoryCapacity,
                hasDisk: diskQueue != nil)
        }
        guard let diskQueue else { return }
        diskQueue.async { self.writeToDisk(entry, key: key, name: name) }
    }

    /// Drops every stored response of these URLs (all methods' entries are `GET` ones).
    func invalidate(_ urls: [String]) {
        let hashes = urls.map { CacheKey.resourceHash("GET " + $0) }
        let names = state.withLock { state -> [String] in
            var removed: [String] = []
            for hash in hashes {
                for name in state.names.removeValue(forKey: hash) ?? [] {
                    state.memory[name] = nil
                    state.memoryOrder.remove(name)
                    removed.append(name)
                }
            }
            return removed
        }
        diskQueue?.async {
            for name in names { self.deleteFile(name) }
        }
    }

    /// Claims the background revalidation of `key`, whose stored response was `entry` when a
    /// stale hit looked it up with `request`'s fields: `false` when one is already under way, or
    /// when `entry` is no longer the stored response (a revalidation ended between that lookup
    /// and this claim, a newer response was stored, or it was removed). The stored response is
    /// read again after the claim is taken, in memory or on disk: a revalidation stores its answer
    /// before it releases its claim, and a disk write is queued before any later read, so no
    /// response stored by a revalidation that ended before this claim goes unseen.
    func beginRevalidation(_ key: CacheKey, of entry: CacheEntry, request: HTTPHeaders) async -> Bool {
        beforeNextClaim.withLock { hook in
            defer { hook = nil }
            return hook
        }?()
        guard state.withLock({ $0.revalidating.insert(key.text).inserted }) else { return false }
        let current = await self.entry(for: key, request: request)
        // The same response within a millisecond: an entry file keeps its times as seconds since
        // 1970, which do not always give back the exact `Date` (about one time in two).
        guard let current, abs(current.responseTime.timeIntervalSince(entry.responseTime)) < 0.001 else {
            endRevalidation(key)
            return false
        }
        return true
    }

    /// Releases the claim of ``beginRevalidation(_:of:request:)``.
    func endRevalidation(_ key: CacheKey) {
        _ = state.withLock { $0.revalidating.remove(key.text) }
    }

    /// Runs `work` on the disk queue and waits for it (at once for a memory-only cache).
    func onDisk<Result: Sendable>(_ work: @escaping @Sendable (HTTPCache) -> Result?) async -> Result? {
        guard let diskQueue else { return work(self) }
        return await withCheckedContinuation { continuation in
            diskQueue.async { continuation.resume(returning: work(self)) }
        }
    }
}
