import Synchronization

// Guarded for iOS and macOS only: tvOS and watchOS still build this with their floor, so the use
// is reported for them (visionOS follows iOS, as the compiler infers).
@available(iOS 18, macOS 15, *)
func partlyGuarded() -> Int {
    let lock = Mutex(1)
    return lock.withLock { $0 }
}
