/// Transport events whose request may have a Swift task waiting for its outcome, which can run a
/// transport's completion work itself: the built-in transport's completion on Linux then runs in
/// that task instead of crossing to the delivery queue's thread first (see `DeliveryQueue`).
protocol WaitingTaskRunner: AnyObject {
    /// Hands `work` to a task that waits for the request's outcome; the task runs it next.
    /// - Parameter work: What the transport would run on its delivery queue.
    /// - Returns: `false` when no task waits: the caller runs or queues `work` itself.
    func runInWaitingTask(_ work: @escaping @Sendable () -> Void) -> Bool
}
