/// What a request shows while it runs: which mask, on which container, and what happens when
/// loading begins and ends.
///
/// Every requirement has a default, so a type only says what differs:
///
/// - `mask()`: a new ``Headless/MaskView``.
/// - `inset()`: ``MaskInsets/zero``.
/// - `maskContainer()`: `nil` (no mask at all).
/// - `begin()`: ``showMask()``; `end()`: ``hideMask()``.
///
/// Masks stack the MBNetwork way: when several loads share a container, the first mask shows
/// and later ones wait hidden behind it; each load's end removes the newest mask, so the visible
/// one leaves with the last load. A custom `begin()`/`end()` (a button that also disables itself)
/// calls ``showMask()``/``hideMask()`` for the mask part.
@MainActor
public protocol Loadable {
    /// The mask to add when loading begins, or `nil` for none. Called once per `begin()`.
    func mask() -> (any Maskable)?
    /// The mask's distance from the container's edges.
    func inset() -> MaskInsets
    /// Where the mask goes, or `nil` for nowhere.
    func maskContainer() -> (any Containable)?
    /// Loading begins: called when `.load` is chained and again when a reload starts.
    func begin()
    /// Loading ends: called once each time the request ends (after its retries), however it ended
    /// (success, failure, cancel).
    func end()
}

extension Loadable {
    /// ``MaskInsets/zero``.
    public func inset() -> MaskInsets { .zero }

    /// `nil`: no container, so no mask.
    public func maskContainer() -> (any Containable)? { nil }

    /// ``showMask()``.
    public func begin() { showMask() }

    /// ``hideMask()``.
    public func end() { hideMask() }

    /// Adds ``mask()`` to the container's host, hidden if a load mask is already there, and
    /// disables scrolling when the container is a ``ScrollContainable``. Does nothing without a
    /// mask, a container or a host.
    public func showMask() {
        guard let container = maskContainer(), let host = container.containerView(), let mask = mask()
        else { return }
        mask.isHidden = !host.loadMasks.isEmpty
        host.add(mask, insets: inset())
        if let scrollView = container as? any ScrollContainable {
            ScrollLocks.lock(scrollView, hostedBy: host)
        }
    }

    /// Removes the newest load mask from the container's host; when it was the last one, every
    /// scroll view that loads locked on that host scrolls again. Does nothing when this loadable
    /// has no mask (so it never takes away another load's mask).
    public func hideMask() {
        guard let host = maskContainer()?.containerView(), mask() != nil,
            let newest = host.loadMasks.last
        else { return }
        host.remove(newest)
        if host.loadMasks.isEmpty {
            ScrollLocks.unlock(hostedBy: host)
        }
    }
}
