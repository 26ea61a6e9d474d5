import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock: the one way Formwork guards mutable state shared across threads.
///
/// `Synchronization.Mutex` would need macOS 15 / iOS 18, so a small lock wrapper keeps older
/// Apple platforms. The value and its `pthread_mutex_t` live in one allocation (a
/// `ManagedBuffer`: the value its header, the mutex its one element), reached through pointers:
/// - corelibs' `NSLock` makes a mutex, a condition and a second mutex (for `lock(before:)`) and
///   frees all three, which cost a small request some 2,500 instructions across its few locks;
/// - a mutex allocated apart cost a `malloc` and a `free` per value, and a class's stored `var`
///   a dynamic exclusivity check per access (together about 3,000 instructions per small request,
///   whose engine takes some 40 locks across about 5 values).
///
/// Copies share the value and its lock (the storage is a class instance).
struct Protected<Value>: @unchecked Sendable {  // every access to the value holds the lock
    private let storage: Storage

    init(_ value: consuming Value) {
        // Moved into the storage, not copied (a copy retains every reference the value holds).
        var value = Optional(value)
        storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value.take()! }, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    ///
    /// `rethrows`, not typed throws: a typed-throws function type needs the iOS 18 / macOS 15
    /// runtime wherever its metadata is needed.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }

    /// The value (header) and its mutex (the one element), in one allocation.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                _ = mutex.deinitialize(count: 1)
            }
        }
    }
}
