import Observation
import Synchronization

// The same uses as Unguarded.swift, each covered by a guard: none may be reported.

@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
func guardedPause() async throws {
    try await Task.sleep(for: .seconds(1))
}

func checkedPause() async throws {
    if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) {
        try await Task.sleep(for: .seconds(1))
    } else {
        try await Task.sleep(nanoseconds: 1_000_000_000)
    }
}

func earlyExitPause() async throws {
    guard #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) else { return }
    try await Task.sleep(for: .seconds(1))
}

func invertedPause() async throws {
    if #unavailable(iOS 16, macOS 13, tvOS 16, watchOS 9) {
        try await Task.sleep(nanoseconds: 1_000_000_000)
    } else {
        try await Task.sleep(for: .seconds(1))
    }
}

@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
final class GuardedCounter: Sendable {
    let count = Mutex(0)

    func increment() {
        count.withLock { $0 += 1 }
    }
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@Observable
final class GuardedModel {
    var name = ""
}

@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
typealias GuardedStep = () throws(CancellationError) -> Void

// Typed throws on declarations is fine, and so is a closure literal passed straight to a parameter.
func validate(_ values: [Int]) throws(CancellationError) -> [Int] {
    try values.map { value throws(CancellationError) in
        if value < 0 { throw CancellationError() }
        return value
    }
}

// A typed `do` statement has no function type.
func firstNonNegative(_ values: [Int]) -> Int? {
    do throws(CancellationError) {
        return try validate(values).first
    } catch {
        return nil
    }
}

// Never compiled for an Apple platform.
#if os(Linux)
    let linuxOnly = Mutex(0)
#endif

// Text in comments and strings is not code: Task.sleep(for: .seconds(1)), () throws(E) -> Void
let description = "Mutex(0) and () throws(CancellationError) -> Void"

// On Linux `for await` records the Swift 6 `next(isolation:)` and `&*` a Swift 6 requirement; an
// Apple build below iOS 18 uses the older ones. The allow-list in tables.py covers both.
func drain(_ stream: AsyncStream<Int>) async -> Int {
    var total = 0
    for await value in stream {
        total &+= value &* 2
    }
    return total
}
