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

/// Where a reload prompt appears when a request fails for want of a network, and which prompt.
///
/// ``Headless/View`` conforms (the prompt goes on the view itself). A screen conforms by
/// returning itself (or its root view) as the container.
@MainActor
public protocol Reloadable {
    /// The container the prompt goes on, or `nil` for none.
    func reloadContainer() -> (any Containable)?
    /// The prompt to show, or `nil` for none. Called once per failure. Defaults to a new
    /// ``Headless/ReloadView``.
    func reloadMask() -> (any ReloadMask)?
}

extension Reloadable {
    /// A new ``Headless/ReloadView``.
    public func reloadMask() -> (any ReloadMask)? { Headless.ReloadView() }
}
