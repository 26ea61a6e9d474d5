import Formwork
import Foundation
import Observation
import Testing

// SwiftUI.md (shared types and helpers: DocSnippetSupport.swift). The article's `Article`,
// `ArticlesForm` and `Envelope.api` are the shared ones; its SwiftUI view is not compiled (no
// SwiftUI on Linux): the test does what the view does — load, read, retry.

extension DocSnippetTests {
    @Suite("DocC article snippets: SwiftUI")
    struct SwiftUITests {
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        final class ArticlesScreenModel: Requestable {
            let articles = RequestModel<[Article]>()
            var session = Session.default  // added for the test

            func load() {
                request(ArticlesForm(), session: session).bindEnvelope(
                    to: articles, atKeyPath: "data.list", envelope: .api)
            }

            func refresh() async {
                // For `.refreshable`: returns when the response is in.
                _ = await request(ArticlesForm(), session: session)
                    .bindEnvelope(to: articles, atKeyPath: "data.list", envelope: .api).response()
            }
        }

        struct PhotoForm: UploadDataFormable {
            let data: Data
            var url: String { "https://api.example.com/photos" }
        }

        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        final class PhotoUploadModel: Requestable {
            let sending = RequestModel<EmptyBody>()
            var session = Session.default  // added for the test

            func send(_ photo: Data) {
                upload(PhotoForm(data: photo), session: session)
                    .bindEnvelope(to: sending, envelope: .api, tracksProgress: true)
            }
        }

        struct ScoresForm: RequestFormable {
            var url: String { "https://api.example.com/scores/live" }
        }

        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        final class LiveScoresModel: Requestable {
            let scores = RequestModel<ServerSentEvent>()
            var session = Session.default  // added for the test

            func start() {
                stream(ScoresForm(), session: session).bind(to: scores)
            }

            func stop() {
                scores.cancel()
            }
        }

        struct ReportForm: DownloadFormable {
            var url: String { "https://api.example.com/reports/latest.pdf" }
        }

        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        final class ReportModel: Requestable {
            let report = RequestModel<URL>()
            var session = Session.default  // added for the test

            func fetch() {
                download(ReportForm(), session: session).bind(to: report)
            }
        }

        @Test("SwiftUI: the live screen's model shows the latest event, then stops closed")
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        func liveScores() async throws {
            let stubs = StubRegistry()
            let body = "retry: 60000\n\nid: 1\ndata: 2-1\n\nid: 2\ndata: 3-1\n\n"
            stubs.stub(
                .get, "https://api.example.com/scores/live",
                StubResponse(
                    headers: ["Content-Type": "text/event-stream"], body: Data(body.utf8), chunkSize: 9))
            let live = LiveScoresModel()
            live.session = Session(stubs: stubs)
            live.start()  // what `.onAppear` does
            #expect(live.scores.connection == .connecting)
            // The stub's body ends: the stream waits a minute (its `retry:`) to reconnect. The last
            // event may reach the model a frame after the connection state (values are throttled
            // to one per frame): wait for both.
            await waitUntil(live.scores) {
                if case .reconnecting = $0.connection { return $0.value?.data == "3-1" }
                return false
            }
            #expect(live.scores.value?.data == "3-1")
            #expect(live.scores.phase.isLoading)
            live.stop()  // what `.onDisappear` does
            await waitUntil(live.scores) { $0.connection == .closed }
            #expect(live.scores.phase.isLoading == false)
            #expect(live.scores.value?.data == "3-1")
        }

        @Test("SwiftUI: the download model ends with the file's URL")
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        func reportDownload() async throws {
            let stubs = StubRegistry()
            let bytes = Data(repeating: 42, count: 100_000)
            stubs.stub(.get, "https://api.example.com/reports/latest.pdf", StubResponse(body: bytes))
            let model = ReportModel()
            model.session = Session(stubs: stubs)
            model.fetch()
            await waitWhileLoading(model.report)
            let file = try #require(model.report.value)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try Data(contentsOf: file) == bytes)
            #expect(model.report.fractionCompleted == 1)
        }

        @Test("SwiftUI: the screen's model loads, fails with the server's message, and retries")
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        func screen() async throws {
            let stubs = StubRegistry()
            let url = "https://api.example.com/articles"
            stubs.stub(.get, url, .json(#"{"code": 7, "msg": "Try again later", "data": null}"#))
            let session = Session(stubs: stubs)
            let screen = ArticlesScreenModel()
            screen.session = session

            screen.load()  // what `.task` does
            #expect(screen.articles.phase.isLoading)
            await screen.refresh()  // what a pull does; the model takes the newest request
            await waitWhileLoading(screen.articles)
            #expect(screen.articles.phase.error?.businessCode == "7")
            #expect(screen.articles.message?.hasPrefix("Try again later") == true)  // "(7)" in DEBUG
            #expect(screen.articles.value == nil)

            stubs.stub(.get, url, .json(articlesJSON))
            screen.articles.reload()  // the "Try again" button
            #expect(screen.articles.phase.isLoading)
            await waitWhileLoading(screen.articles)
            #expect(screen.articles.value?.map(\.title) == ["Forms", "Hooks"])
            #expect(screen.articles.message == nil)
        }

        @Test("SwiftUI: the upload model sends and succeeds")
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        func uploadProgress() async throws {
            let stubs = StubRegistry()
            stubs.stub(.post, "https://api.example.com/photos", .json(#"{"code": 0, "msg": "ok"}"#))
            let model = PhotoUploadModel()
            model.session = Session(stubs: stubs)
            model.send(Data(repeating: 7, count: 300_000))
            await waitWhileLoading(model.sending)
            #expect(model.sending.phase.value != nil)
            #expect(model.sending.message == nil)
            // Stubs cannot report bytes sent; "RequestModel against the demo server" checks an
            // upload's progress against a real server.
        }

        /// Returns once the model is no longer loading (it changes on the main actor; each check
        /// waits for its next change, never for a fixed time).
        @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
        @MainActor
        private func waitWhileLoading<Value>(_ model: RequestModel<Value>) async {
            while model.phase.isLoading {
                await withCheckedContinuation { continuation in
                    withObservationTracking {
                        _ = model.phase
                    } onChange: {
                        continuation.resume()
                    }
                }
            }
        }
    }
}
