/// Something that shows messages, and where.
@MainActor
public protocol Messageable {
    /// The container the message appears in, or `nil` when the presenter knows its own place
    /// (an alert presents itself). Defaults to `nil`.
    func messageContainer() -> (any Containable)?
}

extension Messageable {
    /// `nil`: the presenter knows where it appears.
    public func messageContainer() -> (any Containable)? { nil }
}

/// Shows what went wrong: `.warn(E.self, with: warnable)` calls ``show(error:)`` with a
/// server's error (an `E`) or with a short sentence (a `String`).
@MainActor
public protocol Warnable: Messageable {
    /// Shows the error's ``Errorable/message``.
    /// - Parameter error: What went wrong.
    func show(error: (any Errorable)?)
}

/// Shows that it worked: `.inform(E.self, with: informable)` calls ``show()`` when the server
/// answered 2xx with a success code.
@MainActor
public protocol Informable: Messageable {
    /// Shows ``message``.
    func show()
    /// The success message, e.g. "Saved".
    var message: String { get }
}
