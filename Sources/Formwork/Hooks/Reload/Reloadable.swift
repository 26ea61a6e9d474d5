import Foundation

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
