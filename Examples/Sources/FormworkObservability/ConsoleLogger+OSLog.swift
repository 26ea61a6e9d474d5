#if canImport(os)
    import Formwork
    import os

    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *)
    extension ConsoleLogger {
        /// A console logger whose lines go to the unified logging system through an `os.Logger`,
        /// with the same redaction as on the console.
        ///
        /// Each line is logged as a public value: Formwork has already redacted it, so the system
        /// shows it in full instead of `<private>`.
        /// ```swift
        /// let api = Session {
        ///     $0.interceptors.eventMonitors.append(
        ///         ConsoleLogger(osLogger: os.Logger(subsystem: "com.example.app", category: "api")))
        /// }
        /// ```
        /// - Parameters:
        ///   - osLogger: Where the lines go.
        ///   - type: The level of every line (default `.info`).
        ///   - redaction: What to hide (default: `Authorization`, `Cookie`, `Set-Cookie`...).
        ///   - logsHeaders: Whether request headers are logged (default `true`).
        public init(
            osLogger: os.Logger, type: OSLogType = .info, redaction: Redaction = .standard,
            logsHeaders: Bool = true
        ) {
            let target = OSLogTarget(logger: osLogger, type: type)
            self.init(redaction: redaction, logsHeaders: logsHeaders) { line in
                target.logger.log(level: target.type, "\(line, privacy: .public)")
            }
        }
    }

    /// The logger and level the lines go to. `@unchecked`: `os.Logger` is thread-safe, but some
    /// SDKs do not mark it `Sendable`.
    @available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *)
    private struct OSLogTarget: @unchecked Sendable {
        let logger: os.Logger
        let type: OSLogType
    }
#endif
