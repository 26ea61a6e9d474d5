import Foundation

// The error types that became kinds of `NetworkError` (see CHANGELOG.md). They are unavailable,
// not deprecated: Formwork no longer puts them in `underlyingError`, so a deprecated alias of
// `NetworkError` would compile `error.underlyingError as? InvalidHeaderError` into a check that is
// always false. Unavailable, every use stops the build with the message saying what replaces it.

/// Removed: a business error is a ``NetworkError`` of kind ``NetworkError/Kind/business``.
@available(
    *, unavailable, renamed: "NetworkError",
    message:
        "A business error is a NetworkError of kind .business: read error.businessCode and error.businessMessage"
)
public typealias BusinessError = NetworkError

/// Removed: an invalid header is a ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader``.
@available(
    *, unavailable, renamed: "NetworkError",
    message:
        "An invalid header is a NetworkError of kind .invalidHeader: read error.headerName, error.reason and error.invalidCharacter"
)
public typealias InvalidHeaderError = NetworkError

/// Removed: a parameter that cannot be encoded is a ``NetworkError`` of kind
/// ``NetworkError/Kind/parameterEncodingFailed``.
@available(
    *, unavailable, renamed: "NetworkError",
    message:
        "A parameter encoding failure is a NetworkError of kind .parameterEncodingFailed: read error.reason, error.parameterKeyPath and error.valueType"
)
public typealias ParameterEncodingError = NetworkError

/// Removed: a multipart body that cannot be built is a ``NetworkError`` of kind
/// ``NetworkError/Kind/multipartEncodingFailed``, or ``NetworkError/Kind/fileOperationFailed``
/// for a file part.
@available(
    *, unavailable, renamed: "NetworkError",
    message:
        "A multipart failure is a NetworkError of kind .multipartEncodingFailed or, for a file part, .fileOperationFailed: read error.reason and error.fileURL"
)
public typealias MultipartEncodingError = NetworkError
