extension Request {
    /// Shows what went wrong, the MBNetwork way, and hands success codes to `onSuccess`.
    ///
    /// Once each time the request ends (after its retries; again after a reload), in chain order:
    ///
    /// - no network, a timeout, a request that could not be made: a short sentence
    ///   (``NetworkError/userMessage``, words from ``MessageCatalog``);
    /// - a body whose code (at `E.envelope.codePath`) is one of its `successCodes`: `onSuccess` gets it;
    /// - any other code, with a 2xx or an error status: the server's message (at `E.envelope.messagePath`);
    /// - an error status without a readable code: the status message ("The server had a problem…");
    /// - a 2xx body without a readable code: "The response could not be read." — never silence;
    /// - a cancelled request: nothing.
    ///
    /// Server errors reach `warnable` as an `E`; the library's own sentences as a `String`.
    /// A 2xx without a body in memory (204, HEAD, a download) counts as a success without a code.
    /// - Parameters:
    ///   - error: The error type that reads the body.
    ///   - warnable: What shows the message, e.g. an alert.
    ///   - onSuccess: Runs on the main actor with the body's error value when its code is a
    ///     success code (handle special codes by listing them as success codes).
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func warn<E: JSONErrorable>(
        _ error: E.Type, with warnable: some Warnable, onSuccess: (@MainActor @Sendable (E) -> Void)? = nil
    ) -> Self {
        let bodyInMemory = self is any DataResponding
        let show: @MainActor @Sendable (MessageVerdict<E>) -> Void = { verdict in
            switch verdict {
            case .silent: break
            case .success(let value): onSuccess?(value)
            case .failure(let error): warnable.show(error: error)
            }
        }
        core.append { outcome in
            await show(MessageVerdict<E>(outcome, bodyInMemory: bodyInMemory))
        }
        return self
    }

    /// Shows a success message when the server answered 2xx with a success code (at
    /// `E.envelope.codePath`), and nothing otherwise. A 2xx without a body in memory (204, HEAD, a
    /// download) counts as a success.
    /// - Parameters:
    ///   - error: The error type that reads the body.
    ///   - informable: What shows the message, e.g. an alert made with the success text.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func inform<E: JSONErrorable>(_ error: E.Type, with informable: some Informable) -> Self {
        let bodyInMemory = self is any DataResponding
        let show: @MainActor @Sendable () -> Void = { informable.show() }
        core.append { outcome in
            guard case .success = MessageVerdict<E>(outcome, bodyInMemory: bodyInMemory) else { return }
            await show()
        }
        return self
    }
}
