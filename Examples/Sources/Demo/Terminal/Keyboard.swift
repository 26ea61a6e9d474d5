import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads keys for `--interactive`: single key presses when stdin is a terminal (no Enter needed
/// for `r`), else lines from the pipe.
enum Keyboard {
    /// The terminal settings at start, restored on exit.
    private static let original: termios? = {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        var settings = termios()
        return tcgetattr(STDIN_FILENO, &settings) == 0 ? settings : nil
    }()

    /// Reads keys one by one without echoing them, so that typing does not disturb the live
    /// drawing. Ctrl-C still interrupts. No effect when stdin is not a terminal.
    static func takeOver() {
        guard var settings = original else { return }
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Puts the terminal back as it was.
    static func restore() {
        if var settings = original {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
    }

    /// Waits for one of `keys` (Enter is `"\n"`), ignoring keys typed before the call. Returns
    /// `nil` when stdin ends. The blocking read runs on a GCD thread, so the main actor keeps
    /// drawing meanwhile.
    static func waitForKey(in keys: Set<Character>) async -> Character? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: readKey(in: keys))
            }
        }
    }

    private static func readKey(in keys: Set<Character>) -> Character? {
        if original != nil { tcflush(STDIN_FILENO, TCIFLUSH) }
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            var key = Character(Unicode.Scalar(byte))
            if key == "\r" { key = "\n" }
            let lower = Character(key.lowercased())
            if keys.contains(lower) { return lower }
        }
        return nil
    }
}
