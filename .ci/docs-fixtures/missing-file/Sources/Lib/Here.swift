public struct Here {}
