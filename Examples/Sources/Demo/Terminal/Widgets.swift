import Formwork

/// Draws a view that hosts masks: a screen (its content, or its masks: how many, which one shows),
/// or a table cell's content view.
@MainActor
final class ContainerWidget: Widget {
    private let name: String
    private let view: Headless.View
    private let content: @MainActor () -> String

    /// - Parameters:
    ///   - name: The label.
    ///   - view: The view whose masks are drawn.
    ///   - content: What the view shows when no mask covers it.
    init(_ name: String, view: Headless.View, content: @escaping @MainActor () -> String = { "" }) {
        self.name = name
        self.view = view
        self.content = content
    }

    /// A screen, drawn with its own content.
    convenience init(_ screen: Screen) {
        self.init(screen.title, view: screen) { [unowned screen] in screen.content }
    }

    func observe(_ changed: @escaping @MainActor () -> Void) { view.onChange = changed }
    func stopObserving() { view.onChange = nil }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad(name, Pen.labelWidth), .bold)
        let masks = view.masks
        guard let shown = masks.first(where: { !$0.isHidden }) else {
            return "  \(label) \(pen.paint("○", .green)) \(content())"
        }
        let hidden = masks.filter(\.isHidden).count
        let stack = pen.paint(
            "  [\(masks.count) mask\(masks.count == 1 ? "" : "s"): 1 shown, \(hidden) hidden]", .dim)
        if shown is any ReloadMask {
            return "  \(label) \(pen.paint("⟲ \(MaskText.name(of: shown))", .red, .bold))\(stack)"
        }
        return "  \(label) \(pen.paint("\(pen.spinner) \(MaskText.name(of: shown))", .yellow))\(stack)"
    }

    func plainEvent() -> (key: String, text: String) {
        let masks = view.masks
        let state = masks.isEmpty ? "no mask" : MaskText.stack(masks)
        let shownContent = masks.isEmpty && !content().isEmpty ? " | \(content())" : ""
        let text = "\(name): \(state)\(shownContent)"
        return (text, text)
    }
}

/// Draws a button: enabled, or disabled with the wheel it shows while it loads.
@MainActor
final class ControlWidget: Widget {
    private let name: String
    private let control: Headless.Control

    /// - Parameters:
    ///   - name: The button's title.
    ///   - control: The button.
    init(_ name: String, control: Headless.Control) {
        self.name = name
        self.control = control
    }

    func observe(_ changed: @escaping @MainActor () -> Void) { control.onChange = changed }
    func stopObserving() { control.onChange = nil }

    private var wheel: Bool { control.masks.contains { $0 is Headless.ActivityIndicator } }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad("Button", Pen.labelWidth), .bold)
        guard !control.isEnabled else { return "  \(label) \(pen.paint("[ \(name) ]", .green))  enabled" }
        let face = wheel ? "[ \(pen.spinner) \(name) ]" : "[ \(name) ]"
        return "  \(label) \(pen.paint(face, .dim))  disabled (\(control.activeLoads) load running)"
    }

    func plainEvent() -> (key: String, text: String) {
        let state =
            control.isEnabled
            ? "enabled"
            : "disabled" + (wheel ? ", ActivityIndicator shown" : "") + " (\(control.activeLoads) load)"
        let text = "Button \"\(name)\": \(state)"
        return (text, text)
    }
}

/// Draws whether a scroll view can scroll.
@MainActor
final class ScrollWidget: Widget {
    private let name: String
    private let scrollView: Headless.ScrollView

    /// - Parameters:
    ///   - name: The label.
    ///   - scrollView: The scroll view.
    init(_ name: String, scrollView: Headless.ScrollView) {
        self.name = name
        self.scrollView = scrollView
    }

    func observe(_ changed: @escaping @MainActor () -> Void) { scrollView.onChange = changed }
    func stopObserving() { scrollView.onChange = nil }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad(name, Pen.labelWidth), .bold)
        return scrollView.isScrollEnabled
            ? "  \(label) \(pen.paint("⇅ scrolls", .green))"
            : "  \(label) \(pen.paint("⊘ scrolling locked", .yellow)) (its mask is on the screen)"
    }

    func plainEvent() -> (key: String, text: String) {
        let text = "\(name) (scroll view): " + (scrollView.isScrollEnabled ? "scrolls" : "scrolling locked")
        return (text, text)
    }
}

/// Draws a pull-to-refresh control.
@MainActor
final class RefreshWidget: Widget {
    private let refreshControl: Headless.RefreshControl

    /// - Parameter refreshControl: The control.
    init(_ refreshControl: Headless.RefreshControl) {
        self.refreshControl = refreshControl
    }

    func observe(_ changed: @escaping @MainActor () -> Void) { refreshControl.onChange = changed }
    func stopObserving() { refreshControl.onChange = nil }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad("Pull to refresh", Pen.labelWidth), .bold)
        guard refreshControl.isRefreshing else { return "  \(label) \(pen.paint("○ idle", .green))" }
        let loads = refreshControl.activeLoads
        return
            "  \(label) \(pen.paint("\(pen.spinner) refreshing", .yellow)) (\(loads) load\(loads == 1 ? "" : "s"))"
    }

    func plainEvent() -> (key: String, text: String) {
        let loads = refreshControl.activeLoads
        let text =
            "Refresh control: "
            + (refreshControl.isRefreshing
                ? "refreshing (\(loads) load\(loads == 1 ? "" : "s") running)" : "idle")
        return (text, text)
    }
}

/// Draws an alert: the last message it presented and how many it presented.
@MainActor
final class AlertWidget: Widget {
    private let name: String
    private let alert: Headless.Alert
    private let style: Console.Style

    /// - Parameters:
    ///   - name: The label, e.g. "Warning".
    ///   - alert: The alert.
    ///   - style: The colour of its messages.
    init(_ name: String, alert: Headless.Alert, style: Console.Style) {
        self.name = name
        self.alert = alert
        self.style = style
    }

    func observe(_ changed: @escaping @MainActor () -> Void) { alert.onChange = changed }
    func stopObserving() { alert.onChange = nil }

    func liveLine(_ pen: Pen) -> String {
        let label = pen.paint(Console.pad(name, Pen.labelWidth), .bold)
        guard let last = alert.presentedMessages.last else {
            return "  \(label) \(pen.paint("(nothing shown)", .dim))"
        }
        let count = alert.presentedMessages.count
        return "  \(label) \(pen.paint("“\(last)”", style))" + pen.paint("  (\(count) shown)", .dim)
    }

    func plainEvent() -> (key: String, text: String) {
        let messages = alert.presentedMessages
        let text = messages.last.map { "\(name) alert shows \"\($0)\"" } ?? "\(name) alert: nothing shown"
        return ("\(messages.count)", text)
    }
}
