import Formwork

/// A screen of the pretend app: a `Headless.View` (a view controller's root view) with a title and
/// a line of content that requests fill in. Setting the content reports a change like any other
/// view state, so the board redraws it.
final class Screen: Headless.View {
    /// The screen's name, e.g. "Weather".
    let title: String
    /// What the screen shows, e.g. "Shanghai 23.5 °C, Sunny".
    var content: String {
        didSet { if content != oldValue { setNeedsDisplay() } }
    }

    /// - Parameters:
    ///   - title: The screen's name.
    ///   - content: What it shows at first.
    init(_ title: String, content: String = "") {
        self.title = title
        self.content = content
        super.init()
    }
}

/// How masks read in the demo's output.
@MainActor
enum MaskText {
    /// The kind of mask, its text and its insets, e.g. `MaskView "Loading…"`.
    static func name(of mask: any Maskable) -> String {
        if let view = mask as? Headless.View, view.insets != .zero {
            let insets = view.insets
            return kind(of: mask)
                + " (insets \(Int(insets.top)), \(Int(insets.left)), \(Int(insets.bottom)), \(Int(insets.right)))"
        }
        return kind(of: mask)
    }

    private static func kind(of mask: any Maskable) -> String {
        switch mask {
        case let mask as Headless.MaskView:
            return mask.text.map { "MaskView \"\($0)\"" } ?? "MaskView"
        case is Headless.ActivityIndicator:
            return "ActivityIndicator"
        case let mask as Headless.ReloadView:
            return "ReloadView \"\(mask.message)\""
        default:
            return mask.maskID
        }
    }

    /// E.g. `3 masks: #1 MaskView shown, #2 hidden, #3 hidden`, or `no mask`.
    static func stack(_ masks: [any Maskable]) -> String {
        guard !masks.isEmpty else { return "no mask" }
        let items = masks.enumerated().map { index, mask in
            "#\(index + 1) \(mask.isHidden ? "hidden" : "\(name(of: mask)) shown")"
        }
        return "\(masks.count) mask\(masks.count == 1 ? "" : "s"): " + items.joined(separator: ", ")
    }
}
