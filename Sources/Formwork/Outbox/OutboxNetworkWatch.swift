import Foundation

#if canImport(Network)
    import Network

    /// Calls back when the network path becomes usable, so a waiting outbox tries at once.
    final class OutboxNetworkWatch: @unchecked Sendable {  // NWPathMonitor is thread-safe
        private let monitor = NWPathMonitor()

        /// Starts watching.
        /// - Parameter onSatisfied: Called (on a private queue) each time the path becomes usable.
        init(onSatisfied: @escaping @Sendable () -> Void) {
            monitor.pathUpdateHandler = { path in
                if path.status == .satisfied { onSatisfied() }
            }
            monitor.start(queue: DispatchQueue(label: "Formwork.Outbox.network"))
        }

        /// Stops watching.
        func stop() {
            monitor.cancel()
        }
    }
#else
    /// Without the Network framework (Linux) nothing tells the outbox that the network came
    /// back: it backs off and tries.
    final class OutboxNetworkWatch: Sendable {
        /// Does nothing here.
        /// - Parameter onSatisfied: Never called.
        init(onSatisfied: @escaping @Sendable () -> Void) {}

        /// Does nothing here.
        func stop() {}
    }
#endif
