import Formwork
import Foundation
import Testing

// Streams.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Streams")
    struct StreamsTests {
        struct ScoresForm: RequestFormable {
            var url: String { "https://api.example.com/scores/live" }
        }

        struct Scoreboard: Requestable {
            var session = Session.default  // added for the test

            func follow(show: (String) -> Void) async throws {
                for try await event in stream(ScoresForm(), session: session).events() {
                    if event.type == "goal" { show("Goal! \(event.data)") } else { show(event.data) }
                }
            }
        }

        struct Token: Decodable, Sendable { let text: String }

        struct CompletionForm: RequestFormable {
            let prompt: String
            var url: String { "https://api.example.com/complete" }
            var method: HTTPMethod { .post }
            var parameters: Parameters { ["prompt": prompt] }
            var encoding: ParameterEncoding { .json }
        }

        struct Assistant: Requestable {
            var session = Session.default  // added for the test

            func answer(_ prompt: String) async throws -> String {
                var text = ""
                for try await token in stream(CompletionForm(prompt: prompt), session: session).jsonLines(
                    of: Token.self)
                {
                    text += token.text
                }
                return text
            }
        }

        struct ScoreError: JSONErrorable {  // added for the test: the app's own error type
            static let envelope = Envelope(successCodes: ["0"])
            let code: String?
            let message: String?
        }

        @MainActor
        final class LiveScreen: Requestable {
            let screen = Headless.View()
            let alert = Headless.Alert()
            var session = Session.default  // added for the test

            func open() async throws {
                let scores = stream(ScoresForm(), session: session)
                    .load(LoadType.default(container: screen))  // until the first event
                    .warn(ScoreError.self, with: alert)  // when the stream fails for good
                    .reload(on: screen)  // "tap to reload" after a network failure
                for try await event in scores.events() { print(event.data) }
            }
        }

        struct LiveTicker: Requestable {
            var session = Session.default  // added for the test

            func follow(show: (String) -> Void) async throws {
                for try await update in stream(ScoresForm(), session: session).updates() {
                    switch update {
                    case .event(let event): show(event.data)
                    case .connection(.reconnecting(let wait)):
                        show("Reconnecting in \(Int(wait.rounded(.up))) s")
                    case .connection(.lost): show("Connection lost")
                    case .connection: break
                    }
                }
            }
        }

        struct Socket {  // added for the test: any source of bytes
            let messages: AsyncThrowingStream<Data, any Error>
        }

        static func parse(_ socket: Socket) async throws -> [String] {
            var shown: [String] = []  // added for the test
            var parser = EventStreamParser()
            for try await message in socket.messages {  // any source of bytes
                for event in parser.feed(message) { shown.append("\(event.type) \(event.data)") }
            }
            shown.append("\(parser.lastEventID) \(parser.reconnectionTime ?? 3)")
            return shown
        }

        @Test("Parsing bytes you already have; connection changes in the loop")
        func parserAndUpdates() async throws {
            let messages = AsyncThrowingStream<Data, any Error> { continuation in
                for chunk in ["retry: 1500\nid: 4", "\ndata: hel", "lo\r\n\r", "\nevent: bye\ndata:\n\n"] {
                    continuation.yield(Data(chunk.utf8))
                }
                continuation.finish()
            }
            #expect(try await Self.parse(Socket(messages: messages)) == ["message hello", "bye ", "4 1.5"])
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/scores/live",
                [Self.eventStream("retry: 1\ndata: a\n\n"), StubResponse(statusCode: 204)])
            var shown: [String] = []
            try await LiveTicker(session: Session(stubs: stubs)).follow { shown.append($0) }
            #expect(shown == ["a", "Connection lost", "Reconnecting in 1 s"])
        }

        private static func eventStream(_ text: String) -> StubResponse {
            StubResponse(headers: ["Content-Type": "text/event-stream"], body: Data(text.utf8), chunkSize: 7)
        }

        @Test("Server-sent events: types, reconnection with Last-Event-ID, 204 stops")
        func events() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/scores/live",
                [
                    Self.eventStream("retry: 1\nid: 1\nevent: goal\ndata: 1-0\n\nid: 2\ndata: half time\n\n"),
                    Self.eventStream("id: 3\ndata: 2-0\n\n"),
                    StubResponse(statusCode: 204),
                ])
            var shown: [String] = []
            try await Scoreboard(session: Session(stubs: stubs)).follow { shown.append($0) }
            #expect(shown == ["Goal! 1-0", "half time", "2-0"])
            #expect(stubs.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } == [nil, "2", "3"])
            let patient = StreamReconnection(defaultRetry: 5, maximumDelay: 60, maximumQuietConnections: 10)
            #expect(patient.defaultRetry == 5 && StreamReconnection.default.defaultRetry == 3)
        }

        @Test("JSON lines: tokens decoded in order")
        func jsonLines() async throws {
            let stubs = StubRegistry()
            stubs.stub(
                .post, "https://api.example.com/complete",
                StubResponse(body: Data("{\"text\":\"Hel\"}\n\n{\"text\":\"lo\"}".utf8), chunkSize: 5))
            #expect(try await Assistant(session: Session(stubs: stubs)).answer("Hi") == "Hello")
        }

        @Test("Cancelling the reading task ends the stream")
        func cancellation() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/scores/live", Self.eventStream("data: x\n\n"))
            let session = Session(stubs: stubs)
            let reading = Task {
                for try await event in Client(session: session).stream(ScoresForm(), session: session)
                    .events()
                {
                    print(event.data)
                }
            }
            reading.cancel()
            await #expect(throws: (any Error).self) { try await reading.value }
        }

        @Test("Hooks: load until the first event, warn when the stream fails for good")
        @MainActor
        func hooks() async throws {
            let stubs = StubRegistry()
            stubs.stub(.get, "https://api.example.com/scores/live", .text("not a stream"))
            let live = LiveScreen()
            live.session = Session(stubs: stubs)
            await #expect(throws: NetworkError.self) { try await live.open() }
        }

        struct Client: Requestable {
            let session: Session
        }
    }
}
