/// Suspends for `seconds` (at least 0), or until the task is cancelled.
///
/// `Task.sleep(nanoseconds:)` rather than `Task.sleep(for:)`: the latter and `Duration` need
/// iOS 16 / macOS 13, and Formwork supports iOS 15 / macOS 12.
func sleep(seconds: Double) async {
    guard seconds > 0 else { return }
    // Caps at about 292 years, well inside UInt64, so the conversion cannot trap.
    let nanoseconds = UInt64(min(seconds, 9.0e9) * 1_000_000_000)
    try? await Task.sleep(nanoseconds: nanoseconds)
}
