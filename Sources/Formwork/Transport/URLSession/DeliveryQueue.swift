import Foundation

/// The serial queue a ``Session``'s `URLSession` delivers its delegate callbacks on, with
/// back-pressure: whoever adds work while too much is waiting waits a little first.
///
/// Corelibs URLSession (Linux) reads the socket on its own queue and hands every chunk of a body
/// (at most 16 KiB, libcurl's `CURL_MAX_WRITE_SIZE`) to the delegate with `addOperation`; nothing
/// there ever waits for the delegate. When writing to disk is slower than the network, the chunks
/// pile up in the delegate queue: a 1 GiB download could hold most of itself in memory. Here
/// `addOperation` blocks its caller while more than ``Limits-swift.struct/highWater`` operations
/// are pending, until the consumer has brought them down to ``Limits-swift.struct/lowWater``.
/// The caller is the queue that runs libcurl, so libcurl stops reading and TCP's own flow control
/// slows the server down: memory stays bounded whatever the server sends.
///
/// Three rules keep the wait from ever deadlocking:
/// - work added by a callback running on this queue never waits (it would wait for itself);
/// - a wait goes on only while the consumer makes progress: when it finished nothing during a
///   whole ``Limits-swift.struct/maximumWait``, it is stuck rather than slow, and the work is added
///   at once;
/// - after such a timeout nothing waits again until the consumer finishes an operation. Corelibs
///   code running on this queue may need the very queue that is waiting (a task's `resume()` and
///   the creation of a task use `workQueue.sync`), and libcurl delivers a whole socket read as
///   many chunks in one go: without this rule each chunk would wait its own 250 ms. With it, a
///   stuck consumer costs one short stall; memory is bounded again once it moves.
///
/// Corelibs runs the libcurl side of **every** `URLSession` of the process on one shared serial
/// queue, so while a producer waits here, all URLSessions of the process pause their reading too.
/// That happens only while this session's delegate work is behind the network.
///
/// **No `Operation` per callback on corelibs.** Corelibs hands every callback to
/// `addOperation(_:)` with a block; `OperationQueue` wraps each in a `BlockOperation` with its own
/// locks, state changes and dispatch group, which for a download is one per 16 KiB chunk. Here
/// the blocks run in order on one serial dispatch queue of the queue's own, drained in a loop:
/// a callback costs a lock and an append, and a wake-up only when the queue was idle. On Apple
/// platforms, whose URLSession may add `Operation` objects too, the queue stays an
/// `OperationQueue` (a single order for both kinds).
///
/// **A block added while the queue is idle may run at once** (the built-in transport's queue,
/// ``runsIdleBlocksInline``; corelibs only). Corelibs hands a finished task's completion to the
/// queue like any callback; running it on the adding thread (libcurl's queue) saves the hand-over
/// to the queue's thread, as corelibs' own `data(for:)` does. Formwork's code never runs there:
/// each delegate method of the transport sees ``runningInline`` and moves its call to the queue
/// (``runAfterInlineBlock(_:)``), in order; a completion handler hands its work to the Swift task
/// that awaits the request's outcome, or to the queue. Only corelibs' own bookkeeping around the
/// call runs on libcurl's queue, as it does for `data(for:)`.
final class DeliveryQueue: OperationQueue, @unchecked Sendable {  // its counters are guarded by `condition`
    /// When adding work waits, and for how long.
    struct Limits: Sendable, Equatable {
        /// Adding work waits while at least this many operations are pending.
        let highWater: Int
        /// A waiting caller goes on once the pending operations are down to this many.
        let lowWater: Int
        /// How long a waiting call waits for the consumer to finish at least one operation, in
        /// seconds; when it finishes none, the work is added anyway.
        let maximumWait: TimeInterval

        /// 512 pending chunks of at most 16 KiB each: at most 8 MiB of body waiting for the disk,
        /// an eighth of the 64 MiB growth a 1 GiB download may cause (1,024 measured no better:
        /// 17-54 MiB growth against 17-41 MiB, the rest being libcurl's and malloc's own), and
        /// still 20 ms of data at 400 MB/s or 160 ms at 400 Mbit/s, so a disk that only hiccups
        /// never stops the network. The producer then sleeps until 448 remain: one wake-up per
        /// 64 chunks (1 MiB), not one per chunk, and each wait short. A wait holds corelibs'
        /// one libcurl queue, shared by every `URLSession` of the process, and any thread that
        /// calls into it meanwhile (`URLSessionTask.resume()` waits on it): short waits keep
        /// other sessions' requests moving between them (with 128 as the low-water mark, the
        /// whole suite under TSan saw other requests stall for seconds). 250 ms without a single
        /// finished operation means the consumer is stuck, not slow: the work goes in anyway.
        static let standard = Limits(highWater: 512, lowWater: 448, maximumWait: 0.25)

        /// For the queue of one stream whose body waits for its reader (see
        /// `URLSessionTransport.makeTask`): the stream's own buffer already holds up to its limit
        /// for the reader, so the queue in front of it keeps 1 MiB at most (64 chunks) and lets
        /// the producer go at 48.
        static let stream = Limits(highWater: 64, lowWater: 48, maximumWait: 0.25)
    }

    /// What the queue has seen, for tests and benchmarks.
    struct Statistics: Sendable, Equatable {
        /// The most operations pending at once.
        var peakPending = 0
        /// How many calls to `addOperation` waited.
        var waits = 0
        /// How many of those waits ended because the consumer finished nothing for a whole
        /// ``Limits-swift.struct/maximumWait`` (stuck), rather than at the low-water mark.
        var timedOutWaits = 0
        /// How many callers are waiting right now.
        var waiting = 0
    }

    /// Callers waiting in any delivery queue of the process, and when the last wait ended.
    private static let holding = Protected((waiting: 0, lastEnd: Date.distantPast))

    /// Whether some delivery queue of the process holds libcurl's shared queue back now, or did
    /// within the last half second. While it does, corelibs blocks every thread that calls a
    /// `URLSession` method which waits on that queue (creating or resuming a task): the built-in
    /// transport then does those calls on a dispatch queue, never on a Swift concurrency thread
    /// (there are as many of those as cores; blocking them stalls every task of the process).
    static var isHoldingNetwork: Bool {
        holding.withLock { $0.waiting > 0 || Date().timeIntervalSince($0.lastEnd) < 0.5 }
    }

    let limits: Limits
    /// Whether a block added while the queue is idle runs at once on the adding thread (see the
    /// type's notes); corelibs only.
    let runsIdleBlocksInline: Bool
    private let condition = NSCondition()
    /// Operations added and not yet finished; guarded by `condition`.
    private var pending = 0
    /// Guarded by `condition`.
    private var counters = Statistics()
    /// Operations finished so far (wrapping); guarded by `condition`.
    private var finished = 0
    /// `finished` when a wait last timed out: no call waits while it is unchanged (the consumer is
    /// stuck). Guarded by `condition`.
    private var stuckAt: Int?
    /// How many operations of this queue wait, on purpose, for a stream's reader to make room
    /// (see ``waitingForReader(_:)``); guarded by `condition`.
    private var readerWaits = 0
    #if canImport(FoundationNetworking)
        /// The serial queue the blocks run on (see the type's notes).
        private let runner: DispatchQueue
        /// Blocks added and not yet run, in order, from `head` on (taken ones are nil, so that
        /// each block, and the chunk it holds, is freed as soon as it ran); guarded by `condition`.
        private var queued: [(@Sendable () -> Void)?] = []
        /// The index of the next block to run in `queued`; guarded by `condition`.
        private var head = 0
        /// Whether a drain is scheduled or running on `runner`; guarded by `condition`.
        private var isDraining = false
    #endif

    /// Tells code running on a delivery queue which one it runs on (a weak reference: the runner
    /// keeps its specific value for as long as it lives).
    private final class Reference: Sendable {
        weak let queue: DeliveryQueue?
        init(_ queue: DeliveryQueue) { self.queue = queue }
    }
    private static let runnerKey = DispatchSpecificKey<Reference>()

    #if canImport(FoundationNetworking)
        /// The thread's delivery queue whose block runs inline right now (see the type's notes);
        /// nil when the process has no thread-specific key left (nothing then runs inline).
        private static let inlineKey: pthread_key_t? = {
            var key = pthread_key_t()
            return pthread_key_create(&key, nil) == 0 ? key : nil
        }()

    #endif

    /// The delivery queue whose block runs inline on this thread right now, if any: Formwork's
    /// code reached from such a block moves to the queue (``runAfterInlineBlock(_:)``). Always
    /// nil on Apple platforms.
    static var runningInline: DeliveryQueue? {
        #if canImport(FoundationNetworking)
            inlineKey.flatMap { pthread_getspecific($0) }.map {
                Unmanaged<DeliveryQueue>.fromOpaque($0).takeUnretainedValue()
            }
        #else
            nil
        #endif
    }

    /// The delivery queue whose work is running on the current thread, if any.
    static var running: DeliveryQueue? {
        DispatchQueue.getSpecific(key: runnerKey)?.queue ?? (OperationQueue.current as? DeliveryQueue)
    }

    /// Calls of Formwork's into URLSession that may wait for libcurl's shared queue while some
    /// delivery queue holds it (making, resuming or cancelling a task; see
    /// `URLSessionTransportTask`): while there is one, a producer stops waiting for a stream's
    /// reader, so Formwork's own requests never wait for an app's reader.
    static let callsWaitingForNetwork = Protected(0)

    /// Runs `call` (a call into URLSession that may wait for libcurl's shared queue), counted in
    /// ``callsWaitingForNetwork`` for as long as it runs: always, since a delivery queue may begin
    /// to hold the network just after the call began to wait (such a wait, uncounted, lasted as
    /// long as a stream's reader, and could take every thread of Swift's concurrency pool).
    static func countingWaitForNetwork<Result>(_ call: () -> Result) -> Result {
        callsWaitingForNetwork.withLock { $0 += 1 }
        defer { callsWaitingForNetwork.withLock { $0 -= 1 } }
        return call()
    }

    /// - Parameters:
    ///   - name: The queue's name, as debuggers show it.
    ///   - limits: When adding work waits.
    ///   - runsIdleBlocksInline: Whether a block added while the queue is idle runs at once on
    ///     the adding thread (see the type's notes).
    init(name: String, limits: Limits = .standard, runsIdleBlocksInline: Bool = false) {
        self.limits = limits
        self.runsIdleBlocksInline = runsIdleBlocksInline
        #if canImport(FoundationNetworking)
            runner = DispatchQueue(label: name)
        #endif
        super.init()
        self.name = name
        maxConcurrentOperationCount = 1
        #if canImport(FoundationNetworking)
            runner.setSpecific(key: Self.runnerKey, value: Reference(self))
        #endif
    }

    /// What the queue has seen so far.
    var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return counters
    }

    /// Adds `block`, after waiting while too many operations are pending, unless the caller runs
    /// on this queue or the consumer is stuck (see the type's rules).
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let fromItself = Self.running === self
        condition.lock()
        if !fromItself, pending >= limits.highWater, stuckAt != finished {
            stuckAt = nil
            counters.waits += 1
            counters.waiting += 1
            Self.holding.withLock { $0.waiting += 1 }
            condition.broadcast()  // tells `waitForWaitingCaller(timeout:)`
            var deadline = Date(timeIntervalSinceNow: limits.maximumWait)
            var seen = finished
            while pending > limits.lowWater {
                guard !condition.wait(until: deadline) else { continue }
                guard finished != seen else {
                    // The consumer waits for a stream's reader on purpose: slow, not stuck, unless
                    // a request of Formwork's waits for the network meanwhile.
                    if readerWaits > 0, Self.callsWaitingForNetwork.withLock({ $0 }) == 0 {
                        deadline = Date(timeIntervalSinceNow: limits.maximumWait)
                        continue
                    }
                    // Nothing finished for a whole maximum wait: stuck, not slow.
                    counters.timedOutWaits += 1
                    stuckAt = finished
                    break
                }
                seen = finished
                deadline = Date(timeIntervalSinceNow: limits.maximumWait)
            }
            counters.waiting -= 1
            Self.holding.withLock { holding in
                holding.waiting -= 1
                holding.lastEnd = Date()
            }
        }
        pending += 1
        counters.peakPending = max(counters.peakPending, pending)
        #if canImport(FoundationNetworking)
            if runsIdleBlocksInline, !isDraining, !fromItself, let key = Self.inlineKey {
                // Idle: nothing queued or running, so running it here keeps the order.
                isDraining = true
                condition.unlock()
                runInline(block, key: key)
                return
            }
            queued.append(block)
            let startsDrain = !isDraining
            isDraining = true
            condition.unlock()
            if startsDrain { runner.async { self.drain() } }
        #else
            condition.unlock()
            super.addOperation {
                defer { self.operationFinished() }
                block()
            }
        #endif
    }

    #if canImport(FoundationNetworking)
        /// Runs the queued blocks in order, one lock per block (which also counts the previous
        /// one as finished), until none is left.
        private func drain() {
            var ranOne = false
            while true {
                condition.lock()
                if ranOne { finishLocked() }
                guard head < queued.count, let block = queued[head] else {
                    queued.removeAll(keepingCapacity: true)
                    head = 0
                    isDraining = false
                    condition.unlock()
                    return
                }
                queued[head] = nil
                head += 1
                if head >= 1024, head * 2 >= queued.count {
                    // Never empty for long: drop the run part, so the array stays small.
                    queued.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                block()
                ranOne = true
            }
        }

        /// Runs `block` on this thread, marked as inline, then drains what it (or anyone) queued
        /// meanwhile on the queue's thread. Called with the queue draining and unlocked.
        private func runInline(_ block: () -> Void, key: pthread_key_t) {
            // Restores what was there: another session's queue may run a block inline around this.
            let outer = pthread_getspecific(key)
            pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
            block()
            pthread_setspecific(key, outer)
            condition.lock()
            finishLocked()
            let more = head < queued.count
            if !more {
                queued.removeAll(keepingCapacity: true)
                head = 0
                isDraining = false
            }
            condition.unlock()
            if more { runner.async { self.drain() } }
        }

        /// Blocks until every block added so far has run.
        override func waitUntilAllOperationsAreFinished() {
            condition.lock()
            while pending > 0 { condition.wait() }
            condition.unlock()
        }
    #endif

    /// Queues `work` to run on the queue's thread after the block that runs inline now (call only
    /// from that block, on ``runningInline``): it never waits, as the queue was idle.
    func runAfterInlineBlock(_ work: @escaping @Sendable () -> Void) {
        #if canImport(FoundationNetworking)
            condition.lock()
            pending += 1
            counters.peakPending = max(counters.peakPending, pending)
            queued.append(work)
            condition.unlock()
        #else
            addOperation(work)
        #endif
    }

    /// Runs `wait`, which blocks until a stream's reader makes room (`StreamBufferPolicy.slowDown`).
    /// On a delivery queue, callers that add work meanwhile keep waiting for it however long it
    /// takes (the reader is slow, not stuck), so libcurl reads nothing more and the server slows
    /// down; unless one of Formwork's requests needs libcurl's queue meanwhile (see
    /// ``callsWaitingForNetwork``): then the wait ends as for a stuck consumer.
    static func waitingForReader(_ wait: () -> Void) {
        guard let queue = running else { return wait() }
        queue.changeReaderWaits(by: 1)
        defer { queue.changeReaderWaits(by: -1) }
        wait()
    }

    private func changeReaderWaits(by change: Int) {
        condition.lock()
        readerWaits += change
        condition.unlock()
    }

    /// Blocks until some caller of `addOperation` waits or has waited, or `timeout` seconds pass;
    /// for tests. (A wait may already be over: on a busy machine a consumer whose thread got no
    /// turn for a whole maximum wait is judged stuck, and callers then stop waiting for it.)
    /// - Returns: `true` when a caller waited.
    func waitForWaitingCaller(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while counters.waiting == 0, counters.waits == 0 {
            if !condition.wait(until: deadline) { return counters.waiting > 0 || counters.waits > 0 }
        }
        return true
    }

    /// Counts one operation as done and wakes the waiting callers once few enough remain.
    private func operationFinished() {
        condition.lock()
        finishLocked()
        condition.unlock()
    }

    /// ``operationFinished()``, with `condition` locked by the caller.
    private func finishLocked() {
        pending -= 1
        finished &+= 1
        if pending <= limits.lowWater, counters.waiting > 0 {
            condition.broadcast()
        }
        #if canImport(FoundationNetworking)
            if pending == 0 { condition.broadcast() }  // tells `waitUntilAllOperationsAreFinished`
        #endif
    }
}
