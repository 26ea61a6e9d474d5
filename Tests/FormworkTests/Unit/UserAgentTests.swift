import Foundation
import Testing

@testable import Formwork

@Suite("The default User-Agent")
struct UserAgentTests {
    private let version = OperatingSystemVersion(majorVersion: 17, minorVersion: 5, patchVersion: 1)

    @Test("An app bundle gives its name, version, identifier and build, the OS and Formwork")
    func appBundle() {
        let text = UserAgent.text(
            bundleInfo: [
                "CFBundleExecutable": "Weather", "CFBundleShortVersionString": "2.4.0",
                "CFBundleIdentifier": "com.example.weather", "CFBundleVersion": "312",
            ], processName: "Weather", system: "iOS", systemVersion: version)
        #expect(
            text
                == "Weather/2.4.0 (com.example.weather; build:312; iOS 17.5.1) Formwork/\(UserAgent.formworkVersion)"
        )
    }

    @Test("A program without a bundle is named by its process")
    func noBundle() {
        let text = UserAgent.text(
            bundleInfo: [:], processName: "sync-job", system: "Linux", systemVersion: version)
        #expect(text == "sync-job (Linux 17.5.1) Formwork/\(UserAgent.formworkVersion)")
    }

    @Test("Characters a header cannot carry become '-'; the value is always a valid header")
    func sanitized() throws {
        let text = UserAgent.text(
            bundleInfo: ["CFBundleName": "My App (beta)\n", "CFBundleShortVersionString": "1.0 rc/2"],
            processName: "", system: "macOS", systemVersion: version)
        #expect(text.hasPrefix("My-App--beta--/1.0-rc-2 (macOS 17.5.1) Formwork/"))
        try HTTPHeader.userAgent(text).validate()
        let empty = UserAgent.text(bundleInfo: [:], processName: "", system: "Linux", systemVersion: version)
        #expect(empty.hasPrefix("App (Linux"))
    }

    @Test("The session's default names this process and Formwork")
    func sessionDefault() {
        let text = Session.Configuration().userAgent ?? ""
        #expect(text == Session.Configuration.defaultUserAgent)
        #expect(text.contains("Formwork/\(UserAgent.formworkVersion)"))
        #expect(text.contains(UserAgent.systemName))
    }
}
