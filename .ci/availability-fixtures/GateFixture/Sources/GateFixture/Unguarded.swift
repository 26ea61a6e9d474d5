import Observation
import Synchronization

// Every use in this file is newer than the floor and unguarded: each must be reported.

func pause() async throws {
    try await Task.sleep(for: .seconds(1))
}

final class Counter: Sendable {
    let count = Mutex(0)
}

@Observable
final class Model {
    var name = ""
}

typealias Step = () throws(CancellationError) -> Void

struct Runner {
    let step: (Int) throws(CancellationError) -> Void
}

// Named in the source, `next(isolation:)` is a real iOS 18 use (only for-await's is allowed).
func first(_ stream: AsyncStream<Int>) async -> Int? {
    var iterator = stream.makeAsyncIterator()
    return await iterator.next(isolation: nil)
}
