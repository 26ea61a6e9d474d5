/// How far a mask sits inside its container's edges, in points (UIKit's `UIEdgeInsets`, which
/// is not available off Apple platforms).
///
/// Formwork's own type with a name of its own, so that it never clashes with SwiftUI's
/// `EdgeInsets` or AppKit's `NSEdgeInsets` in an app file that imports them too. It was called
/// `EdgeInsets` before.
public struct MaskInsets: Sendable, Hashable, CustomStringConvertible {
    /// Distance from the container's top edge.
    public var top: Double
    /// Distance from the container's left edge.
    public var left: Double
    /// Distance from the container's bottom edge.
    public var bottom: Double
    /// Distance from the container's right edge.
    public var right: Double

    /// Creates insets.
    /// - Parameters:
    ///   - top: Distance from the top edge.
    ///   - left: Distance from the left edge.
    ///   - bottom: Distance from the bottom edge.
    ///   - right: Distance from the right edge.
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No insets: the mask covers the whole container.
    public static let zero = MaskInsets(top: 0, left: 0, bottom: 0, right: 0)

    /// e.g. `"(top: 8.0, left: 0.0, bottom: 8.0, right: 0.0)"`.
    public var description: String {
        "(top: \(top), left: \(left), bottom: \(bottom), right: \(right))"
    }
}
