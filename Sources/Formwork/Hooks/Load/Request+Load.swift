extension Request {
    /// Shows loading UI for as long as the request runs.
    ///
    /// `loadable.begin()` runs now; `loadable.end()` runs once when the request ends (after its
    /// retries, if any), however it ends (success, failure, cancel), in chain order with the other
    /// hooks and handlers. When the request is sent again by a reload, `begin()` runs again before
    /// it and `end()` again after it. The network refresh of
    /// ``CachePolicy/cacheThenNetwork`` that follows a cached value shows no mask: `begin()` and
    /// `end()` run once, around the cached value, so the mask shows only while nothing is on
    /// screen.
    ///
    /// On a ``StreamRequest``, loading ends at the stream's first item (event, line or chunk) or
    /// at its end without one; reconnections of an event stream do not show it again.
    ///
    /// ```swift
    /// request(WeatherForm()).load(LoadType.default(container: screen))   // a mask on the screen
    /// request(SubmitForm()).load(button)                                 // a spinner, disabled
    /// request(WeatherForm()).load(refreshControl)                        // refreshing until done
    /// ```
    ///
    /// To drive a SwiftUI `RequestModel` instead of showing a mask, bind the request to it with
    /// `bind(to:)`.
    /// - Parameter loadable: What to show; defaults to ``LoadType/none``.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func load(_ loadable: some Loadable = LoadType.none) -> Self {
        if let stream = self as? StreamRequest {
            stream.loadUntilFirstItem(loadable)
            return self
        }
        let begin: @MainActor @Sendable () -> Void = { loadable.begin() }
        let end: @MainActor @Sendable () -> Void = { loadable.end() }
        begin()
        core.onLaterAttemptStart(begin)
        core.append { outcome in
            if !outcome.isBackgroundRefresh { await end() }
        }
        return self
    }
}
