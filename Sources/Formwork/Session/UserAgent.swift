import Foundation

extension Session.Configuration {
    /// The `User-Agent` Formwork sends by default (``userAgent``): the app, its version and
    /// build, the operating system, and Formwork, e.g.
    /// `Weather/2.4.0 (com.example.weather; build:312; iOS 17.5.1) Formwork/0.1.0`.
    ///
    /// Read once from the main bundle (`CFBundleExecutable` or `CFBundleName`,
    /// `CFBundleShortVersionString`, `CFBundleIdentifier`, `CFBundleVersion`) and the process; a
    /// program without a bundle (a Linux service, a command-line tool) is named by its process:
    /// `weather-sync (Linux 6.1.0) Formwork/0.1.0`. Characters a header cannot carry become `-`.
    public static let defaultUserAgent = UserAgent.text(
        bundleInfo: Bundle.main.infoDictionary ?? [:], processName: ProcessInfo.processInfo.processName,
        system: UserAgent.systemName,
        systemVersion: ProcessInfo.processInfo.operatingSystemVersion)
}

/// How the default `User-Agent` is made (see ``Session/Configuration/defaultUserAgent``).
enum UserAgent {
    /// Formwork's version, as its product token names it.
    static let formworkVersion = "0.1.0"

    /// The operating system's name as apps know it.
    static var systemName: String {
        #if targetEnvironment(macCatalyst)
            "macOS(Catalyst)"
        #elseif os(iOS)
            "iOS"
        #elseif os(tvOS)
            "tvOS"
        #elseif os(watchOS)
            "watchOS"
        #elseif os(visionOS)
            "visionOS"
        #elseif os(macOS)
            "macOS"
        #elseif os(Linux)
            "Linux"
        #elseif os(Windows)
            "Windows"
        #elseif os(Android)
            "Android"
        #else
            "Unknown"
        #endif
    }

    /// The header value for an app described by `bundleInfo` (an `Info.plist` dictionary).
    /// - Parameters:
    ///   - bundleInfo: The main bundle's info dictionary (empty without a bundle).
    ///   - processName: The process's name, for a program without a bundle name.
    ///   - system: The operating system's name.
    ///   - systemVersion: Its version.
    /// - Returns: `App/version (bundle id; build:N; OS version) Formwork/version`, leaving out
    ///   what the bundle does not say.
    static func text(
        bundleInfo: [String: Any], processName: String, system: String,
        systemVersion: OperatingSystemVersion
    ) -> String {
        func info(_ key: String) -> String? {
            (bundleInfo[key] as? String).map(token).flatMap { $0.isEmpty ? nil : $0 }
        }
        let name = info("CFBundleExecutable") ?? info("CFBundleName") ?? token(processName)
        var product = name.isEmpty ? "App" : name
        if let version = info("CFBundleShortVersionString") { product += "/\(version)" }
        let os =
            "\(system) \(systemVersion.majorVersion).\(systemVersion.minorVersion).\(systemVersion.patchVersion)"
        let comment = [info("CFBundleIdentifier"), info("CFBundleVersion").map { "build:\($0)" }, os]
            .compactMap { $0 }.joined(separator: "; ")
        return "\(product) (\(comment)) Formwork/\(formworkVersion)"
    }

    /// `text` with every character that is not an RFC 9110 token character replaced by `-`
    /// (spaces, slashes, parentheses, non-ASCII letters), so the value is always a valid header.
    static func token(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9": Character(scalar)
                case _ where "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar): Character(scalar)
                default: "-"
                }
            })
    }
}
