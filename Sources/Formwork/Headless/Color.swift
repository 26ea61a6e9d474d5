extension Headless {
    /// An RGBA colour with components in 0...1 (UIKit's `UIColor` is not available here): what a
    /// stand-in remembers of the colours it was given, for tests. Not part of the public API.
    struct Color: Sendable, Hashable, CustomStringConvertible {
        /// Red, 0...1.
        var red: Double
        /// Green, 0...1.
        var green: Double
        /// Blue, 0...1.
        var blue: Double
        /// Opacity, 0 (transparent) ... 1 (opaque).
        var alpha: Double

        /// Creates a colour.
        /// - Parameters:
        ///   - red: Red, 0...1.
        ///   - green: Green, 0...1.
        ///   - blue: Blue, 0...1.
        ///   - alpha: Opacity, 0...1; defaults to opaque.
        init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// Fully transparent.
        static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)
        /// Black.
        static let black = Color(red: 0, green: 0, blue: 0)
        /// White.
        static let white = Color(red: 1, green: 1, blue: 1)
        /// Mid grey: the default spinner colour.
        static let gray = Color(red: 0.5, green: 0.5, blue: 0.5)
        /// The blue UIKit uses as its default tint.
        static let blue = Color(red: 0, green: 0.478, blue: 1)

        /// e.g. `"rgba(0.0, 0.478, 1.0, 1.0)"`.
        var description: String {
            "rgba(\(red), \(green), \(blue), \(alpha))"
        }
    }
}
