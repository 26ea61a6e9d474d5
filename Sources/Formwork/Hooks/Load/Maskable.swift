/// A view that covers a container while it loads: a dimmed HUD, a spinner, a reload prompt.
///
/// The `maskID` tells masks apart from each other and from the container's other subviews.
/// ``Headless/MaskView``, ``Headless/ActivityIndicator`` and ``Headless/ReloadView`` conform; in a
/// UIKit app, any `UIView` subclass can.
@MainActor
public protocol Maskable: AnyObject {
    /// What kind of mask this is, e.g. `"Formwork.MaskView"`.
    var maskID: String { get }
    /// `true` while the mask is in its container but not shown (it waits behind another mask).
    var isHidden: Bool { get set }
}

/// What a container view does with masks: UIKit's `addSubview` / `removeFromSuperview`, with the
/// masks kept in the order they were added.
///
/// ``Headless/View`` conforms. To adapt a `UIView`, return its `Maskable` subviews as `masks`,
/// add a mask as a subview pinned to the edges with the insets (drawing a mask that is not a view,
/// such as the default ``Headless/MaskView``, with a view of your own), and remove it from its
/// superview: the UIKit recipe in <doc:LoadingAndMasks>.
@MainActor
public protocol MaskHost: AnyObject {
    /// The masks in this container, oldest first, newest last.
    var masks: [any Maskable] { get }
    /// Adds a mask on top of everything, `insets` inside the container's edges.
    /// - Parameters:
    ///   - mask: The mask to add.
    ///   - insets: Its distance from the container's edges.
    func add(_ mask: any Maskable, insets: MaskInsets)
    /// Removes a mask added with ``add(_:insets:)``; does nothing if it is not there.
    /// - Parameter mask: The mask to remove.
    func remove(_ mask: any Maskable)
}

/// Something a mask can be put on: a screen, a view, a cell, a button.
///
/// It names the view that actually hosts the masks: a screen its root view, a view itself, a
/// table cell its content view, a scroll view its nearest ancestor that does not scroll.
@MainActor
public protocol Containable: AnyObject {
    /// The view that hosts masks for this container, or `nil` when it has none (yet).
    func containerView() -> (any MaskHost)?
}

/// A container that scrolls: while a load masks it, scrolling is disabled, and it comes back
/// when the last mask on its host goes.
///
/// ``Headless/ScrollView`` conforms; a `UIScrollView` adapter gets `isScrollEnabled` for free.
@MainActor
public protocol ScrollContainable: Containable {
    /// Whether the user can scroll.
    var isScrollEnabled: Bool { get set }
}

extension MaskHost {
    /// The masks put there by loads, oldest first: every mask but reload prompts.
    var loadMasks: [any Maskable] {
        masks.filter { !($0 is any ReloadMask) }
    }
}
