import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the demo writes: a live terminal (ANSI colours, lines redrawn in place) or a plain stream
/// of lines (a pipe, a file, CI).
@MainActor
final class Console {
    /// `true` when output is drawn live with ANSI escape sequences.
    let isLive: Bool
    /// `true` when text is coloured (live output, unless `NO_COLOR` is set).
    let usesColor: Bool

    /// A text style, as an SGR parameter.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
    }

    /// - Parameter live: Draw with ANSI escape sequences (only sensible when stdout is a terminal).
    init(live: Bool) {
        isLive = live
        usesColor = live && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// `true` when stdout is a terminal.
    nonisolated static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Writes text as it is (unbuffered, so lines and redraws appear at once).
    func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }

    /// Writes one line.
    func line(_ text: String = "") {
        write(text + "\n")
    }

    /// `text` in `styles` when colours are on, else `text`.
    func paint(_ text: String, _ styles: Style...) -> String {
        guard usesColor, !styles.isEmpty else { return text }
        return "\u{1B}[\(styles.map(\.rawValue).joined(separator: ";"))m\(text)\u{1B}[0m"
    }

    /// The terminal's width in columns (80 when unknown).
    var columns: Int {
        var size = winsize()
        guard isLive, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Hides the cursor while the demo draws (live output only).
    func hideCursor() {
        if isLive { write("\u{1B}[?25l") }
    }

    /// Shows the cursor again.
    func showCursor() {
        if isLive { write("\u{1B}[?25h") }
    }

    /// Cuts `line` to `width` visible characters, keeping its escape sequences.
    static func clip(_ line: String, to width: Int) -> String {
        var visible = 0
        var result = ""
        var inEscape = false
        for character in line {
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                result.append(character)
                continue
            }
            guard visible < width else { continue }
            result.append(character)
            visible += 1
        }
        return result
    }

    /// `text` padded with spaces to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
