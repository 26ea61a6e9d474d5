/// A library type (see the README recipe).
public struct Lib {}
