import Testing

/// Suites that must not run at the same time: the cancel stress test keeps both cores busy for
/// seconds, which delays the timers the timeout tests measure (on 2 cores, by over a second).
@Suite(.serialized)
enum TimingSensitiveSuites {}
