// Strict UTF-8 checks built on the `UTF8` codec, which every Swift runtime has:
// `String(validating:as:)` would do the same but needs iOS 18 / macOS 15.

/// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or truncated sequences).
func isValidUTF8(_ bytes: some Sequence<UInt8>) -> Bool {
    var iterator = bytes.makeIterator()
    var codec = UTF8()
    while true {
        switch codec.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}

/// Decodes `bytes` as UTF-8 and appends their scalars to `scalars`.
/// - Returns: `false` when the bytes are not well-formed UTF-8 (`scalars` then holds the scalars
///   before the first bad sequence).
func appendUTF8(_ bytes: some Sequence<UInt8>, to scalars: inout String.UnicodeScalarView) -> Bool {
    var iterator = bytes.makeIterator()
    var codec = UTF8()
    while true {
        switch codec.decode(&iterator) {
        case .scalarValue(let scalar): scalars.append(scalar)
        case .emptyInput: return true
        case .error: return false
        }
    }
}
