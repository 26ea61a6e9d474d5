import Dispatch

/// Runs blocking work (file I/O, encoding large bodies) on a GCD queue instead of the Swift
/// concurrency pool, which has one thread per core: blocking it would stall every task, timers
/// and deadlines included.
func offload<Result: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Result
) async throws(Failure) -> Result {
    let result: Swift.Result<Result, Failure> = await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .utility).async {
            continuation.resume(returning: Swift.Result { () throws(Failure) -> Result in try work() })
        }
    }
    return try result.get()
}
