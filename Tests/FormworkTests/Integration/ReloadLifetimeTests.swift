import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A pending reload prompt must not keep a closed screen alive (issue 12 §6).
@Suite("Reload prompt lifetime against the demo server", .timeLimit(.minutes(5)))
@MainActor
struct ReloadLifetimeTests {
    /// The transport under test is in place before any request.
    private let transport = TransportUnderTest.installed

    /// A screen as an app writes one: it sends the request itself and offers reloads on `container`.
    final class ArticleScreen: Requestable, Containable, Reloadable {
        let view = Headless.View()
        /// Where the prompt goes: the screen's own view, or a view that outlives the screen.
        private weak var host: Headless.View?

        init(promptHost: Headless.View? = nil) {
            host = promptHost
        }

        func containerView() -> (any MaskHost)? { host ?? view }
        func reloadContainer() -> (any Containable)? { self }

        func load(_ url: String, ended: EventCounter) -> DataRequest {
            request(TestForm(url: url)).reload(on: self).response { _ in ended.increment() }
        }
    }

    /// A `/flaky` URL that keeps failing at the transport level.
    private func failingURL() async throws -> String {
        try await DemoServer.url("/flaky?key=\(UUID().uuidString)")
    }

    @Test("A screen closed while its prompt is up is released; its prompt goes with its view")
    func screenWithPromptIsReleased() async throws {
        let ended = EventCounter()
        var screen: ArticleScreen? = ArticleScreen()
        weak let weakScreen = screen
        let request = try #require(screen).load(try await failingURL(), ended: ended)
        await ended.wait(for: 1)
        let prompt = try #require(screen?.view.masks.first as? Headless.ReloadView)
        #expect(prompt.onReload != nil)

        screen = nil
        #expect(weakScreen == nil)
        #expect(prompt.superview == nil)  // its view went with the screen

        prompt.reload()
        #expect(prompt.onReload == nil)  // the prompt let go of the request
        #expect(request.core.lifecycleState == .finished)  // nothing was sent again
        #expect(ended.value == 1)
    }

    @Test("A prompt on a view that outlives its screen: tapping it removes it and sends nothing")
    func promptOutlivingScreenDoesNothing() async throws {
        let window = Headless.View()
        let ended = EventCounter()
        var screen: ArticleScreen? = ArticleScreen(promptHost: window)
        weak let weakScreen = screen
        let request = try #require(screen).load(try await failingURL(), ended: ended)
        await ended.wait(for: 1)
        let prompt = try #require(window.masks.first as? Headless.ReloadView)

        screen = nil
        #expect(weakScreen == nil)
        #expect(window.masks.count == 1)

        prompt.reload()
        #expect(window.masks.isEmpty)
        #expect(prompt.onReload == nil)
        #expect(request.core.lifecycleState == .finished)
        #expect(ended.value == 1)
    }

    @Test("While the screen lives, its prompt still reloads")
    func livingScreenReloads() async throws {
        let ended = EventCounter()
        let screen = ArticleScreen()
        let request = screen.load(try await failingURL(), ended: ended)
        await ended.wait(for: 1)
        let prompt = try #require(screen.view.masks.first as? Headless.ReloadView)
        prompt.reload()
        #expect(screen.view.masks.isEmpty)
        await ended.wait(for: 2)  // the request ran again and failed again: a new prompt
        #expect(screen.view.masks.count == 1)
        #expect(request.core.lifecycleState == .finished)
    }
}
