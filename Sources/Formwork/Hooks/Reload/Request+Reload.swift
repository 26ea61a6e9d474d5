extension Request {
    /// Offers a reload when the request fails for want of a network (a "try again" prompt).
    ///
    /// When the request ends (after its retries) with a network failure
    /// (``NetworkError/isNetworkFailure``: no connection, timeout, connection lost — not an HTTP
    /// status, not a business error, not a cancel), `reloadable.reloadMask()` is added on
    /// `reloadable.reloadContainer()`. Triggering it (``ReloadMask/reload()``) removes it and sends
    /// the same request again through the same chain: `load` begins again, and every hook and
    /// handler runs again for the new attempt — including this one, should the network still be
    /// down. The network refresh of a
    /// ``CachePolicy/cacheThenNetwork`` request, which follows a cached value already delivered,
    /// offers no prompt when it fails: the cached value stays on screen.
    ///
    /// A shown prompt keeps its request alive until it is triggered or removed from its
    /// container, but never `reloadable`: a class (a screen) is held weakly, so a screen that was
    /// closed is released even while its prompt is up. Once it is gone, no new prompt is offered,
    /// and triggering a prompt still up only removes it (nothing is sent, and the prompt lets go
    /// of the request). A struct `reloadable` is a value: it is kept, as values are.
    /// - Parameter reloadable: Where the prompt goes and which prompt it is.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func reload(on reloadable: some Reloadable) -> Self {
        let core = self.core
        let target = ReloadTarget(reloadable)
        let offer: @MainActor @Sendable () -> Void = {
            guard let reloadable = target.value, let host = reloadable.reloadContainer()?.containerView(),
                let mask = reloadable.reloadMask()
            else { return }
            mask.onReload = { [weak host, weak mask] in
                guard let mask else { return }
                mask.onReload = nil
                host?.remove(mask)
                guard target.value != nil else { return }  // the screen is gone: nothing to reload for
                core.restart()
            }
            mask.isHidden = false
            host.add(mask, insets: .zero)
        }
        core.append { outcome in
            // A background refresh (cache-then-network) that fails leaves the cached value on
            // screen: no prompt covers it.
            guard let error = outcome.error, error.isNetworkFailure, !outcome.isBackgroundRefresh else {
                return
            }
            await offer()
        }
        return self
    }
}

/// The reloadable a `.reload(on:)` works for, held weakly when it is an object (so a pending
/// prompt does not keep a closed screen alive) and as a value otherwise.
@MainActor
final class ReloadTarget<Target: Reloadable> {
    private let storedValue: Target?
    private weak var object: AnyObject?

    init(_ target: Target) {
        if type(of: target) is AnyClass {
            storedValue = nil
            object = target as AnyObject
        } else {
            storedValue = target
        }
    }

    /// The reloadable, or `nil` once an object reloadable was released.
    var value: Target? {
        storedValue ?? object as? Target
    }
}
