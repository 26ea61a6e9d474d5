/// The two everyday loads: none, or the default mask on a container.
///
/// ```swift
/// request(WeatherForm()).load(LoadType.default(container: screen))   // a full-screen mask
/// request(WeatherForm()).load()                                      // LoadType.none: nothing
/// ```
public enum LoadType: Loadable {
    /// No loading UI at all.
    case none
    /// A ``Headless/MaskView`` on `container` (the ``Loadable`` defaults).
    case `default`(container: any Containable)

    /// The container of `.default`, `nil` for `.none`.
    public func maskContainer() -> (any Containable)? {
        switch self {
        case .none: nil
        case .default(let container): container
        }
    }
}
