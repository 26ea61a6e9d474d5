extension Request {
    /// Offers a reload when an attempt fails for want of a network (the seed's "重新请求").
    ///
    /// When an attempt ends with a network failure (``NetworkError/isNetworkFailure``: no
    /// connection, timeout, connection lost — not an HTTP status, not a business error, not a
    /// cancel), `reloadable.reloadMask()` is added on `reloadable.reloadContainer()`. Triggering
    /// it (``ReloadMask/reload()``) removes it and sends the same request again through the same
    /// chain: `load` begins again, and every hook and handler runs again for the new attempt —
    /// including this one, should the network still be down.
    ///
    /// A shown prompt keeps its request alive until it is triggered or removed from its
    /// container.
    /// - Parameter reloadable: Where the prompt goes and which prompt it is.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func reload(on reloadable: some Reloadable) -> Self {
        let core = self.core
        let offer: @MainActor @Sendable () -> Void = {
            guard let host = reloadable.reloadContainer()?.containerView(), let mask = reloadable.reloadMask()
            else { return }
            mask.onReload = { [weak host, weak mask] in
                guard let mask else { return }
                mask.onReload = nil
                host?.remove(mask)
                core.restart()
            }
            mask.isHidden = false
            host.add(mask, insets: .zero)
        }
        core.append { outcome in
            guard let error = outcome.error, error.isNetworkFailure else { return }
            await offer()
        }
        return self
    }
}
