import Foundation

// What the hooks show when an app names nothing else: a headless stand-in. The hooks sit below the
// headless views, so their defaults that name a view live here.

extension Loadable {
    /// A new ``Headless/MaskView``.
    public func mask() -> (any Maskable)? { Headless.MaskView() }
}

extension Reloadable {
    /// A new ``Headless/ReloadView``.
    public func reloadMask() -> (any ReloadMask)? { Headless.ReloadView() }
}
