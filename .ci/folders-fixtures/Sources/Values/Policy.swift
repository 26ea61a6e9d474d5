// Fixture of .ci/folders-test: the lowest layer, using nothing.
struct Policy: Sendable {
    var retries = 0
}

typealias Seconds = Double

func clamp(_ value: Seconds) -> Seconds { max(0, value) }
