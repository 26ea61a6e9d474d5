import Dispatch

/// Runs blocking work (file I/O, encoding large bodies) on a GCD queue instead of the Swift
/// concurrency pool, which has one thread per core: blocking it would stall every task, timers
/// and deadlines included.
///
/// `work`'s errors are untyped: a typed-throws function type needs the iOS 18 / macOS 15
/// runtime (see the README's "Platforms").
func offload<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    let result: Swift.Result<Result, any Error> = await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .utility).async {
            do {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try result.get()
}
