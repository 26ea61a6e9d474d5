import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock: the one way Formwork guards mutable state shared across threads.
///
/// `Synchronization.Mutex` would need macOS 15 / iOS 18, so a small lock wrapper keeps older
/// Apple platforms. On Linux it holds a `pthread_mutex_t` of its own rather than an `NSLock`:
/// corelibs' `NSLock` makes a mutex, a condition and a second mutex (for `lock(before:)`) and
/// frees all three, which cost a small request some 2,500 instructions across its few locks.
final class Protected<Value>: @unchecked Sendable {  // every access to `value` holds the lock
    #if canImport(Glibc) || canImport(Musl)
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
        private let lock = NSLock()
    #endif
    private var value: Value

    init(_ value: Value) {
        self.value = value
        #if canImport(Glibc) || canImport(Musl)
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        #endif
    }

    #if canImport(Glibc) || canImport(Musl)
        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }
    #endif

    /// Runs `body` with exclusive access to the value and returns its result.
    ///
    /// `rethrows`, not typed throws: a typed-throws function type needs the iOS 18 / macOS 15
    /// runtime wherever its metadata is needed.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Glibc) || canImport(Musl)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #else
            lock.lock()
            defer { lock.unlock() }
        #endif
        return try body(&value)
    }

    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }
}
