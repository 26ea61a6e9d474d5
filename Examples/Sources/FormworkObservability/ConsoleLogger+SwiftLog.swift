import Formwork
import Logging

extension ConsoleLogger {
    /// A console logger whose lines go to a swift-log `Logger` (and so to whatever log handler the
    /// process bootstrapped), with the same redaction as on the console.
    ///
    /// ```swift
    /// let api = Session {
    ///     $0.interceptors.eventMonitors.append(ConsoleLogger(logger: Logger(label: "api")))
    /// }
    /// ```
    /// - Parameters:
    ///   - logger: Where the lines go.
    ///   - level: The level of every line (default `.info`).
    ///   - redaction: What to hide (default: `Authorization`, `Cookie`, `Set-Cookie`...).
    ///   - logsHeaders: Whether request headers are logged (default `true`).
    public init(
        logger: Logger, level: Logger.Level = .info, redaction: Redaction = .standard,
        logsHeaders: Bool = true
    ) {
        self.init(redaction: redaction, logsHeaders: logsHeaders) { line in
            logger.log(level: level, "\(line)")
        }
    }
}
