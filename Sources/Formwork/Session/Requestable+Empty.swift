// The old name of `EmptyBody` inside `Requestable` types, for one release (see EmptyBody.swift).
extension Requestable {
    /// The old name of ``EmptyBody``, kept for one release inside `Requestable` types.
    @available(*, deprecated, renamed: "EmptyBody", message: "Combine's Empty clashed with it")
    public typealias Empty = EmptyBody
}
