import Formwork
import FormworkTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// OfflineOutbox.md. Public API only (a plain `import Formwork`). Like Transports.md's suite, this
// one runs against the demo server: what the article promises (a request applied once, the same
// key after a relaunch, waiting offline) is only true of a real exchange, so each test's session
// has an adapter, added for the test, that sends the article's `https://api.example.com/...` URLs
// to the demo server's `/idempotency/apply` (which applies a request once per `Idempotency-Key`),
// or to a port where nothing listens while the test is "offline". Where a test needs a particular
// answer (a server's message), a stubbed session gives it. The article's free functions are
// static functions here; its folders are scratch folders. The last test checks that every Swift
// block of the article is mirrored in this file.

// MARK: - The article's code (OfflineOutbox.md)

extension DocSnippetOfflineOutboxTests {
    // MARK: Overview

    struct PostCommentForm: RequestFormable {
        let postID: Int
        let text: String
        var url: String { "https://api.example.com/posts/\(postID)/comments" }
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["text": text] }
        var encoding: ParameterEncoding { .json }
    }

    @MainActor
    final class CommentComposer {
        let outbox: Outbox
        let alert = Headless.Alert()

        init(outbox: Outbox) {
            self.outbox = outbox
        }

        func send(_ text: String, on postID: Int) async {
            do {
                try await outbox.enqueue(PostCommentForm(postID: postID, text: text), tag: "comment")
                // On disk now: clear the text field, close the screen; the outbox does the rest.
            } catch {
                // Nothing was saved: the outbox is full or closed, or the form cannot be built.
                alert.show(error: error.userMessage)
            }
        }
    }

    // MARK: Setting it up

    /// `support` is added for the test: the article reads Application Support itself.
    static func openOutbox(session: Session, support: URL) throws(NetworkError) -> Outbox {
        // let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        var options = Outbox.Options()
        options.expiry = 3 * 24 * 3_600  // a comment three days late is not worth sending
        options.maximumBytes = 50 * 1_024 * 1_024
        return try Outbox(
            directory: support.appendingPathComponent("outbox"), session: session, options: options)
    }

    // MARK: Results

    @MainActor
    final class OutboxFeed {
        var sentIDs: [UUID] = []
        var failures: [UUID: String] = [:]
        var waitingCount = 0

        func follow(_ outbox: Outbox) {
            Task {
                for await delivery in outbox.deliveries() {
                    switch delivery.result {
                    case .success: sentIDs.append(delivery.entry.id)
                    case .failure(let error) where error.isCancelled: break  // the app cancelled it
                    case .failure(let error): failures[delivery.entry.id] = error.userMessage
                    }
                }
            }
            Task {
                for await status in outbox.statusUpdates() {
                    waitingCount = status.pendingCount  // e.g. "2 comments waiting to be sent"
                }
            }
        }
    }

    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor
    final class PendingBadge {
        let model = OutboxModel()

        init(outbox: Outbox) {
            outbox.bind(to: model)
        }

        var text: String? {
            model.pendingCount == 0 ? nil : "\(model.pendingCount) waiting to be sent"
        }
    }

    struct CommentError: JSONErrorable {
        static let envelope = Envelope(successCodes: ["0"])
        let code: String?
        let message: String?
    }

    @MainActor
    static func showOutboxMessages(of outbox: Outbox, on banner: Headless.Alert) {
        outbox.warn(CommentError.self, with: banner)  // "Comment rejected: too long" from the server
        outbox.inform(CommentError.self, with: banner)  // the banner's own "Sent"
    }

    // MARK: Limits and control

    static func discardDrafts(olderThan age: TimeInterval, in outbox: Outbox) async {
        for entry in await outbox.pending() where entry.tag == "draft" {
            if entry.enqueuedAt < Date(timeIntervalSinceNow: -age) {
                await outbox.cancel(entry.id)
            }
        }
    }

    enum OutboxRules {
        static let options = Outbox.Options(isPermanent: { error in
            switch error.statusCode {
            case 401: false  // try again later: the refresh may not have got through
            default: Outbox.Options.isPermanentByDefault(error)
            }
        })
    }

    // MARK: After a crash

    static func reportSetAside(of outbox: Outbox, to log: (String) -> Void) {
        for entry in outbox.setAside {
            log("outbox: \(entry.fileName) set aside (\(entry.reason)), now at \(entry.movedTo.path)")
        }
    }
}

// MARK: - The tests

@Suite("DocC article snippets: Offline outbox", .serialized, .timeLimit(.minutes(5)))
struct DocSnippetOfflineOutboxTests {
    /// The demo server behind `https://api.example.com`, and a switch to take the network away.
    final class DemoAPI: @unchecked Sendable {  // `offlineValue` is guarded by `lock`
        let counter = "docs-outbox-\(UUID().uuidString)"
        let base: String
        let closedPort: Int
        private let lock = NSLock()
        private var offlineValue = false

        init() async throws {
            base = try await DemoServer.baseURL()
            closedPort = try UnusedPort.find()
        }

        var offline: Bool {
            get {
                lock.lock()
                defer { lock.unlock() }
                return offlineValue
            }
            set {
                lock.lock()
                offlineValue = newValue
                lock.unlock()
            }
        }

        /// A session whose requests to api.example.com go to `/idempotency/apply` (or nowhere
        /// while offline); with `postID`, that post's comments go to `/status/<status>` instead.
        func session(statusFor postID: Int? = nil, status: Int = 200) -> Session {
            let api = self
            let applyURL = URL(string: "\(base)/idempotency/apply?counter=\(counter)")
            let statusURL = URL(string: "\(base)/status/\(status)")
            return Session {
                $0.interceptors.adapters = [
                    Adapter { request in
                        guard request.url?.host == "api.example.com" else { return request }
                        var moved = request
                        let isStatusPost = postID.map { request.url?.path == "/posts/\($0)/comments" }
                        moved.url = isStatusPost == true ? statusURL : applyURL
                        if api.offline, let url = moved.url,
                            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
                        {
                            parts.port = api.closedPort
                            moved.url = parts.url
                        }
                        return moved
                    }
                ]
            }
        }

        /// How often the demo server applied the counter's effect, and how many requests came.
        func applied() async throws -> (applied: Int, arrivals: Int) {
            let url = try await DemoServer.url("/idempotency/count?counter=\(counter)")
            let json = try await Session().request(Plain(url: url)).data()
            let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            return (object["applied"] as? Int ?? -1, object["arrivals"] as? Int ?? -1)
        }
    }

    struct Plain: RequestFormable {
        let url: String
    }

    /// Fast waits, so a test that goes offline does not wait long.
    static let quick = RetryPolicy(baseDelay: 0.05, maximumDelay: 0.2)

    static func quickOptions(_ options: Outbox.Options = Outbox.Options()) -> Outbox.Options {
        var options = options
        options.backoff = quick
        return options
    }

    @Test("Overview: the composer's comment is on disk at once, sent with its key, applied once")
    @MainActor
    func composer() async throws {
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try await DemoAPI()
        let outbox = try Outbox(directory: folder, session: api.session(), options: Self.quickOptions())
        let feed = OutboxFeed()
        feed.follow(outbox)
        let composer = CommentComposer(outbox: outbox)

        await composer.send("Hello from the tunnel", on: 7)
        #expect(composer.alert.presentedMessages.isEmpty)
        await eventually("the comment's delivery") { feed.sentIDs.count == 1 }
        #expect(feed.failures.isEmpty)
        #expect(try await api.applied() == (1, 1))
        #expect(await outbox.pending().isEmpty)
        await eventually("the waiting count back to 0") { feed.waitingCount == 0 }

        // A closed outbox saves nothing: the composer shows why.
        await outbox.close()
        await composer.send("Too late", on: 7)
        #expect(composer.alert.presentedMessages.count == 1)
        #expect(composer.alert.presentedMessages.first?.hasPrefix(MessageCatalog()[.outboxFailed]) == true)
    }

    @Test("Setting it up: one outbox per directory, the article's options; a new one sends what was left")
    func setUp() async throws {
        let support = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: support) }
        let api = try await DemoAPI()
        api.offline = true
        let first = try Self.openOutbox(session: api.session(), support: support)
        let opened = openedWith(first)
        #expect(opened.options.expiry == TimeInterval(3 * 24 * 3_600))
        #expect(opened.options.maximumBytes == 50 * 1_024 * 1_024)
        #expect(opened.directory.lastPathComponent == "outbox")
        let entry = try await first.enqueue(PostCommentForm(postID: 1, text: "left behind"))

        #expect {
            _ = try Self.openOutbox(session: api.session(), support: support)
        } throws: { error in
            (error as? NetworkError)?.reason == .directoryInUse
        }
        await first.close()
        await #expect {
            try await first.enqueue(PostCommentForm(postID: 1, text: "after close"))
        } throws: { error in
            (error as? NetworkError)?.reason == .closed
        }

        // "A new process picks up the rest": a new outbox on the directory, online this time.
        api.offline = false
        let second = try Self.openOutbox(session: api.session(), support: support)
        #expect(await second.pending().map(\.id) == [entry.id])
        let deliveries = second.deliveries()
        await second.retryNow()
        for await delivery in deliveries {
            #expect(delivery.entry.id == entry.id)
            #expect(delivery.entry.idempotencyKey == entry.idempotencyKey)
            #expect(delivery.response?.statusCode == 201)
            break
        }
        #expect(try await api.applied() == (1, 1))
        await second.close()
    }

    @Test("Results: the feed and the badge follow two comments queued offline, then sent")
    @MainActor
    func results() async throws {
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try await DemoAPI()
        api.offline = true
        let outbox = try Outbox(directory: folder, session: api.session(), options: Self.quickOptions())
        let feed = OutboxFeed()
        feed.follow(outbox)
        let ids = [
            try await outbox.enqueue(PostCommentForm(postID: 1, text: "one")).id,
            try await outbox.enqueue(PostCommentForm(postID: 2, text: "two")).id,
        ]
        await eventually("two waiting") { feed.waitingCount == 2 }

        guard #available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *) else { return }
        let badge = PendingBadge(outbox: outbox)
        await eventually("the badge's count") { badge.text == "2 waiting to be sent" }
        #expect(badge.model.lastDelivery == nil)

        api.offline = false
        await outbox.retryNow()
        await eventually("both sent") { feed.sentIDs == ids }
        await eventually("the badge empty") { badge.text == nil && badge.model.lastDelivery != nil }
        #expect(badge.model.lastDelivery?.entry.id == ids[1])
        #expect(try await api.applied() == (2, 2))
        await outbox.close()
        await eventually("the badge's phase") { badge.model.phase == .closed }
    }

    @Test("Results: warn and inform show the server's message and the banner's own, after the screen")
    @MainActor
    func messages() async throws {
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = StubRegistry()
        stubs.stub(.post, "https://api.example.com/posts/1/comments", .json(#"{"code": 0}"#, statusCode: 201))
        stubs.stub(
            .post, "https://api.example.com/posts/2/comments",
            .json(#"{"code": 1, "message": "Comment rejected: too long"}"#, statusCode: 422))
        let outbox = try Outbox(
            directory: folder, session: Session(stubs: stubs), options: Self.quickOptions())
        let banner = Headless.Alert(message: "Sent")
        Self.showOutboxMessages(of: outbox, on: banner)
        let composer = CommentComposer(outbox: outbox)
        await composer.send("Nice post", on: 1)
        await composer.send(String(repeating: "long ", count: 100), on: 2)
        await eventually("two messages") { banner.presentedMessages.count == 2 }
        #expect(banner.presentedMessages == ["Sent", "Comment rejected: too long"])
        #expect(stubs.requests.allSatisfy { $0.value(forHTTPHeaderField: "Idempotency-Key") != nil })
        await outbox.close()
    }

    @Test("Limits and control: drafts are cancelled, the comment stays; over the bound, full")
    @MainActor
    func control() async throws {
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try await DemoAPI()
        api.offline = true
        var options = Self.quickOptions()
        options.maximumCount = 3
        let outbox = try Outbox(directory: folder, session: api.session(), options: options)
        let feed = OutboxFeed()
        feed.follow(outbox)
        try await outbox.enqueue(PostCommentForm(postID: 1, text: "draft 1"), tag: "draft")
        let comment = try await outbox.enqueue(PostCommentForm(postID: 1, text: "kept"), tag: "comment")
        try await outbox.enqueue(PostCommentForm(postID: 1, text: "draft 2"), tag: "draft")
        await #expect {
            try await outbox.enqueue(PostCommentForm(postID: 1, text: "one too many"))
        } throws: { error in
            (error as? NetworkError)?.reason == .full
        }

        await Self.discardDrafts(olderThan: 3_600, in: outbox)
        #expect(await outbox.pending().count == 3)  // none is an hour old
        await Self.discardDrafts(olderThan: 0, in: outbox)
        #expect(await outbox.pending().map(\.id) == [comment.id])

        api.offline = false
        await outbox.retryNow()
        await eventually("the comment sent") { feed.sentIDs == [comment.id] }
        #expect(feed.failures.isEmpty)  // the cancelled drafts are not failures
        #expect(try await api.applied() == (1, 1))
        await outbox.close()
    }

    @Test("Limits and control: the default keeps a 409, the article's rule a 401 too; a 404 ends")
    func rules() async throws {
        func error(_ status: Int) throws -> NetworkError {
            let response = try #require(
                HTTPURLResponse(
                    url: URL(string: "https://api.example.com/x")!, statusCode: status, httpVersion: nil,
                    headerFields: nil))
            return NetworkError(.unacceptableStatusCode, failureReason: "\(status)", response: response)
        }
        let rule = OutboxRules.options.isPermanent
        #expect(try !rule(error(409)))
        #expect(try !rule(error(401)))
        #expect(try rule(error(404)))
        #expect(try !rule(error(503)))
        #expect(try !Outbox.Options.isPermanentByDefault(error(409)))
        #expect(try Outbox.Options.isPermanentByDefault(error(401)))

        // On the wire: a comment answered 409 stays pending, one answered 404 ends.
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try await DemoAPI()
        let outbox = try Outbox(
            directory: folder, session: api.session(statusFor: 9, status: 409),
            options: Self.quickOptions(OutboxRules.options))
        var statuses = outbox.statusUpdates().makeAsyncIterator()
        let busy = try await outbox.enqueue(PostCommentForm(postID: 9, text: "in use"))
        while let status = await statuses.next() {
            if case .waiting = status.phase { break }
        }
        #expect(await outbox.pending().map(\.id) == [busy.id])
        await outbox.close()
    }

    @Test("After a crash: a damaged entry is set aside and reported; the rest is sent")
    func setAside() async throws {
        let folder = try DocSnippetTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let api = try await DemoAPI()
        api.offline = true
        let first = try Outbox(directory: folder, session: api.session(), options: Self.quickOptions())
        let kept = try await first.enqueue(PostCommentForm(postID: 1, text: "kept"))
        await first.close()
        let garbage = folder.appendingPathComponent("entries")
            .appendingPathComponent("00000000000000000099-\(UUID().uuidString).entry")
        try Data("not an entry".utf8).write(to: garbage)

        api.offline = false
        let second = try Outbox(directory: folder, session: api.session(), options: Self.quickOptions())
        let lines = DocSnippetTests.Lines()
        Self.reportSetAside(of: second, to: { lines.append($0) })
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasPrefix("outbox: \(garbage.lastPathComponent) set aside (") == true)
        #expect(second.setAside.first?.movedTo.path.contains("set-aside") == true)
        for await delivery in second.deliveries() {
            #expect(delivery.entry.id == kept.id)
            break
        }
        #expect(try await api.applied() == (1, 1))
        await second.close()
    }

    @Test("every Swift block of the article is mirrored in this file")
    func mirrored() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent()  // Docs
            .deletingLastPathComponent()  // FormworkTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Formwork/Formwork.docc/OfflineOutbox.md"),
            encoding: .utf8)
        let mirror = try String(contentsOf: here, encoding: .utf8)
        let lines = article.components(separatedBy: "\n")
        var blocks = 0
        for (index, line) in lines.enumerated() where line == "```swift" {
            blocks += 1
            // Each block's lines must all be here, indented as this file indents them, except
            // where a comment above says what the test changed.
            let block = lines[(index + 1)...].prefix { $0 != "```" }
            for line in block where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let bare = line.trimmingCharacters(in: .whitespaces)
                #expect(
                    mirror.contains(bare) || Self.changedForTheTest.contains(bare),
                    "not mirrored: \(bare)")
            }
        }
        #expect(blocks == 8)
    }

    /// The article's lines this file changes, each for a reason given where it is changed.
    static let changedForTheTest: Set<String> = [
        "func openOutbox(session: Session) throws(NetworkError) -> Outbox {"
    ]
}
