/// A mask that offers to send a failed request again: "Network unavailable. Tap to reload."
///
/// `.reload(on:)` sets ``onReload``; the prompt calls ``reload()`` when the user taps it.
@MainActor
public protocol ReloadMask: Maskable {
    /// What reloading does; set by `.reload(on:)` (it removes the mask and sends the request
    /// again).
    var onReload: (@MainActor () -> Void)? { get set }
}

extension ReloadMask {
    /// Sends the request again (what a tap on the prompt does). Does nothing if nothing is set.
    public func reload() {
        onReload?()
    }
}
