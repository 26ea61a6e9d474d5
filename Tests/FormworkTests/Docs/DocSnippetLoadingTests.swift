import Formwork
import Foundation
import Testing

// LoadingAndMasks.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Loading and masks")
    struct LoadingTests {
        @MainActor
        final class ArticlesScreen: Requestable, Containable {
            let view = Headless.View()  // your root view
            let submitButton = Headless.Control()
            let refreshControl = Headless.RefreshControl()
            var session = Session.default  // added for the test

            func containerView() -> (any MaskHost)? { view }  // masks go on the root view

            func viewDidLoad() {
                // a full-screen mask
                request(ArticlesForm(), session: session).load(LoadType.default(container: self))
            }
            func submitTapped() {
                // disabled, with a wheel, until it ends
                request(ArticlesForm(), session: session).load(submitButton)
            }
            func pulledToRefresh() {
                // refreshing until the last load ends
                request(ArticlesForm(), session: session).load(refreshControl)
            }
            func didSelect(_ cell: Headless.TableViewCell) {
                request(ArticlesForm(), session: session).load(cell)  // a wheel on the cell's content view
            }
        }

        struct LoadConfig: Loadable {
            var container: (any Containable)?
            var text = "Loading…"
            var insets = MaskInsets(top: 94, left: 15, bottom: 120, right: 15)

            func mask() -> (any Maskable)? { Headless.MaskView(text: text) }
            func inset() -> MaskInsets { insets }
            func maskContainer() -> (any Containable)? { container }
            func begin() {
                showMask()
                print("loading started")  // analytics, haptics, …
            }
        }

        /// What a UIKit HUD draws for a mask that is not a view: a dimmed cover, a spinner and a line of
        /// text (the mask's own for a `Headless.MaskView`, none for other masks).
        struct HUDContent {
            var text: String?
            var dimming: Double  // the cover's opacity, black
            var isHidden = false  // waiting behind another mask

            @MainActor
            init(drawing mask: any Maskable) {
                text = (mask as? Headless.MaskView)?.text
                dimming = mask is Headless.MaskView ? 0.4 : 0  // the default mask dims what it covers
                isHidden = mask.isHidden
            }
        }

        @Test("UIKit recipe: the default mask is dimmed, a LoadConfig's has its text, one waiting is hidden")
        @MainActor
        func hudContent() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/articles", .json(articlesJSON, delay: 0.2))
            let session = Session(stubs: stubs)
            let caller = Caller()
            let screen = Headless.View()

            let first = caller.request(ArticlesForm(), session: session)
                .load(LoadType.default(container: screen))
            let second = caller.request(ArticlesForm(page: 2), session: session)
                .load(LoadConfig(container: screen, text: "Fetching articles…"))
            try #require(screen.masks.count == 2)
            let shown = HUDContent(drawing: screen.masks[0])
            #expect(shown.text == nil)
            #expect(shown.dimming == 0.4)
            #expect(!shown.isHidden)
            let waiting = HUDContent(drawing: screen.masks[1])
            #expect(waiting.text == "Fetching articles…")
            #expect(waiting.isHidden)
            let spinner = HUDContent(drawing: Headless.ActivityIndicator())
            #expect(spinner.text == nil)
            #expect(spinner.dimming == 0)
            await first.settled()
            await second.settled()
            #expect(screen.masks.isEmpty)
        }

        @Test("Loading: masks stack, controls and refresh controls wait for their last load")
        @MainActor
        func loading() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/articles", .json(articlesJSON, delay: 0.2))
            let session = Session(stubs: stubs)
            let caller = Caller()

            let screen = Headless.View()
            let first = caller.request(ArticlesForm(), session: session)
                .load(LoadType.default(container: screen))
            let second = caller.request(ArticlesForm(page: 2), session: session)
                .load(LoadType.default(container: screen))
            // screen.masks.count == 2: the first is shown, the second waits hidden behind it
            #expect(screen.masks.map(\.isHidden) == [false, true])
            await first.settled()
            await second.settled()
            #expect(screen.masks.isEmpty)

            let articles = ArticlesScreen()
            articles.session = session
            articles.viewDidLoad()
            articles.submitTapped()
            articles.submitTapped()
            articles.pulledToRefresh()
            let cell = Headless.TableViewCell()
            articles.didSelect(cell)
            #expect(articles.view.masks.count == 1)
            #expect(!articles.submitButton.isEnabled)
            #expect(articles.submitButton.masks.first is Headless.ActivityIndicator)
            #expect(articles.refreshControl.isRefreshing)
            #expect(cell.contentView.masks.count == 1)
            // The screen's methods return nothing to wait on: poll (each stub answers after 0.2 s).
            for _ in 0..<250 where !articles.view.masks.isEmpty || articles.refreshControl.isRefreshing {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            for _ in 0..<250 where !articles.submitButton.isEnabled || !cell.contentView.masks.isEmpty {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            #expect(articles.view.masks.isEmpty)
            #expect(articles.submitButton.isEnabled)
            #expect(!articles.refreshControl.isRefreshing)
            #expect(cell.contentView.masks.isEmpty)

            let root = Headless.View()
            let list = Headless.ScrollView()
            root.addSubview(list)
            let custom = caller.request(ArticlesForm(), session: session)
                .load(LoadConfig(container: list, text: "Fetching articles…"))
            let mask = try #require(root.masks.first as? Headless.MaskView)
            #expect(mask.text == "Fetching articles…")
            #expect(mask.insets == MaskInsets(top: 94, left: 15, bottom: 120, right: 15))
            #expect(!list.isScrollEnabled)
            await custom.settled()
            #expect(root.masks.isEmpty)
            #expect(list.isScrollEnabled)
        }
    }
}
