/// A library type. Its test data comes from a seeded generator (`seed: 3`).
public struct Lib {
    public init() {}
}
