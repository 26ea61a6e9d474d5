/// Where a request's responses are filed: its method and final URL, and the hash of its
/// credentials when it has any (so one user's stored responses never answer another's request).
struct CacheKey: Sendable, Hashable {
    /// The method and the final URL, e.g. `GET https://api.example.com/items?page=2`.
    let resource: String
    /// A SHA-256 of the request's credential fields, or `nil` without credentials.
    let credential: String?

    /// The key of a request.
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The final URL (absolute string).
    ///   - credential: From ``CacheStorability/credentialKey(_:extraNames:)``.
    init(method: String, url: String, credential: String?) {
        self.resource = method + " " + url
        self.credential = credential
    }

    /// The key as written in an entry file and checked when it is read back.
    var text: String { resource + "\n" + (credential ?? "") }

    /// The first part of every file name of this resource, for all credentials and variants:
    /// 32 hex digits of the resource's SHA-256.
    var resourceHash: String { Self.resourceHash(resource) }

    /// The resource part of file names for `resource`.
    static func resourceHash(_ resource: String) -> String { String(SHA256.hex(resource).prefix(32)) }

    /// The file name of one stored variant: the resource hash, then a hash of the credential,
    /// the values the response varies on, and whether it is partial (a stored `206` never
    /// replaces the complete response, nor the other way round).
    func fileName(vary: [CacheVary.Value], partial: Bool = false) -> String {
        let variant =
            ([credential ?? ""] + vary.map { "\($0.name)=\($0.value ?? "\u{0}")" }
            + (partial ? ["\u{0}partial"] : [])).joined(separator: "\n")
        return resourceHash + "-" + SHA256.hex(variant).prefix(16) + HTTPCache.entryExtension
    }
}
