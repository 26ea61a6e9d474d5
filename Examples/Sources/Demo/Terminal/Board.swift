import Foundation

/// Something drawn on the board: one line describing one or more headless components.
@MainActor
protocol Widget: AnyObject {
    /// Calls `changed` whenever a component it draws changes (through their `onChange`).
    func observe(_ changed: @escaping @MainActor () -> Void)
    /// Stops calling back.
    func stopObserving()
    /// The line drawn in a live terminal.
    func liveLine(_ pen: Pen) -> String
    /// The state as a plain line, printed as an event whenever `key` changes.
    func plainEvent() -> (key: String, text: String)
}

/// What a widget draws with: the console's colours and the spinner's current frame.
@MainActor
struct Pen {
    /// The console (for colours).
    let console: Console
    /// Advances while the board is live, to turn spinners.
    let frame: Int

    /// How wide widget labels are.
    static let labelWidth = 16

    /// The spinner's current character.
    var spinner: String {
        let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
        return String(frames[frame % frames.count])
    }

    /// `text` in `styles` when colours are on.
    func paint(_ text: String, _ styles: Console.Style...) -> String {
        styles.reduce(text) { console.paint($0, $1) }
    }
}

/// The picture of one scenario: its widgets, drawn again whenever the headless components behind
/// them report a change (their `onChange` callbacks), never by polling requests.
///
/// Live, the widgets stay at the bottom of the terminal and are redrawn in place, with narration
/// scrolling above them; plain, every change is printed as a line with the time since the
/// scenario started.
@MainActor
final class Board {
    private let console: Console
    private let hub: ChangeHub
    private var widgets: [any Widget] = []
    /// The lines on screen now (live output).
    private var drawnLines: [String] = []
    /// The last event key printed per widget (plain output).
    private var printedKeys: [ObjectIdentifier: String] = [:]
    private var frame = 0
    private var ticker: Task<Void, Never>?
    private var startedAt = Date()

    /// - Parameters:
    ///   - console: Where to draw.
    ///   - hub: Told about every change, so that scenarios waiting for a state wake up.
    init(console: Console, hub: ChangeHub) {
        self.console = console
        self.hub = hub
    }

    /// Starts a new picture (for the next scenario).
    func begin() {
        startedAt = Date()
        if console.isLive, ticker == nil {
            // Only turns the spinners: every state change is drawn by `changed()` at once.
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    self?.tick()
                }
            }
        }
    }

    /// Adds widgets at the bottom and draws them.
    func show(_ newWidgets: any Widget...) {
        for widget in newWidgets {
            widgets.append(widget)
            widget.observe { [weak self] in self?.changed() }
        }
        changed()
    }

    /// Draws what changed and wakes scenarios waiting for a state.
    func changed() {
        draw()
        hub.notify()
    }

    /// Prints a line of narration (above the live widgets).
    func note(_ text: String) {
        if console.isLive {
            var output = ""
            if !drawnLines.isEmpty { output += "\r\u{1B}[\(drawnLines.count)A\u{1B}[J" }
            output += text + "\n"  // may wrap: only the widgets below are redrawn
            drawnLines = []
            console.write(output)
            draw()
        } else {
            console.line(text)
        }
    }

    /// Leaves the final picture on screen and forgets the widgets.
    func end() {
        draw()
        for widget in widgets { widget.stopObserving() }
        widgets = []
        drawnLines = []
        printedKeys = [:]
        ticker?.cancel()
        ticker = nil
    }

    private func tick() {
        frame += 1
        draw()
    }

    private func draw() {
        if console.isLive {
            drawLive()
        } else {
            printEvents()
        }
    }

    private func drawLive() {
        let pen = Pen(console: console, frame: frame)
        let width = console.columns - 1
        let lines = widgets.map { Console.clip($0.liveLine(pen), to: width) }
        guard lines != drawnLines else { return }
        var output = drawnLines.isEmpty ? "" : "\r\u{1B}[\(drawnLines.count)A"
        for line in lines { output += "\u{1B}[2K" + line + "\n" }
        if lines.count < drawnLines.count { output += "\u{1B}[J" }
        drawnLines = lines
        console.write(output)
    }

    private func printEvents() {
        let elapsed = String(format: "%6.2fs", Date().timeIntervalSince(startedAt))
        for widget in widgets {
            let (key, text) = widget.plainEvent()
            let id = ObjectIdentifier(widget)
            guard printedKeys[id] != key else { continue }
            printedKeys[id] = key
            console.line("  [\(elapsed)] \(text)")
        }
    }
}
