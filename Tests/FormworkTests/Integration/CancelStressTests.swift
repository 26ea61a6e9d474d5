import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Cancels chosen requests of its session the moment their URLSession task is about to start,
/// from another thread, so the cancel lands right around `resume()`.
private final class CancelAtStart: EventMonitor {
    private let requests = Protected([UUID: DataRequest]())

    /// Cancel `request` when its first attempt starts.
    func watch(_ request: DataRequest) {
        requests.withLock { $0[request.id] = request }
    }

    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        guard let watched = requests.withLock({ $0.removeValue(forKey: id) }) else { return }
        DispatchQueue.global().async { watched.cancel() }
    }
}

/// Soaks Formwork with requests cancelled at every moment of their life (issue 12 §9).
///
/// corelibs URLSession (Linux) could crash the process when a task's cancel raced its own
/// completion (`TaskRegistry.swift:118`) while the session had a `URLCache`; a bare URLSession
/// with a cache crashed within a few thousand requests of this mix. ``Session`` now runs without
/// a URL cache. Set `FORMWORK_CANCEL_STRESS_COUNT` for a longer soak (e.g. 200000).
extension TimingSensitiveSuites {
    @Suite("Cancel stress against the demo server")
    struct CancelStressTests {
        /// How many requests to send: 20,000 unless the environment says otherwise.
        static let count =
            ProcessInfo.processInfo.environment["FORMWORK_CANCEL_STRESS_COUNT"]
            .flatMap { Int($0) } ?? 20_000
        /// Requests in flight at once.
        static let concurrency = 64
        /// The transport under test is in place before any request.
        private let transport = TransportUnderTest.installed

        /// When a request gets cancelled.
        enum Moment: CaseIterable {
            /// Before anything started (no task exists yet).
            case beforeStart
            /// From another thread, the moment its task is resumed.
            case atResume
            /// 0-3 ms after the request was started.
            case afterDelay
            /// After it finished: must change nothing.
            case afterCompletion
            /// Never.
            case never

            /// 10 % around the start (as the outside soak did), some later, most never.
            static func random() -> Moment {
                switch Int.random(in: 0..<100) {
                case 0..<3: .beforeStart
                case 3..<10: .atResume
                case 10..<15: .afterDelay
                case 15..<20: .afterCompletion
                default: .never
                }
            }
        }

        /// How one request ended.
        enum Ending: Sendable {
            case succeeded, cancelled
            case failed(String)
        }

        @Test("Cancelling at any moment never crashes, and every request still ends exactly once")
        func cancelAtAnyMoment() async throws {
            let url = try await DemoServer.url("/weather?city=stress")
            let watcher = CancelAtStart()
            // Two sessions: completion-handler tasks (no monitor) and delegate-routed tasks.
            let plain = Session()
            let watched = Session { $0.interceptors.eventMonitors = [watcher] }
            let started = Date()
            let endings = await withTaskGroup(of: Ending.self) { group -> [Ending] in
                var endings: [Ending] = []
                endings.reserveCapacity(Self.count)
                var launched = 0
                func launch() {
                    let index = launched
                    launched += 1
                    group.addTask {
                        await Self.send(
                            TestForm(url: url), moment: .random(), index: index, plain, watched, watcher)
                    }
                }
                for _ in 0..<min(Self.concurrency, Self.count) { launch() }
                for await ending in group {
                    endings.append(ending)
                    if launched < Self.count { launch() }
                }
                return endings
            }
            let seconds = Date().timeIntervalSince(started)
            let failures = endings.compactMap { ending -> String? in
                if case .failed(let reason) = ending { return reason }
                return nil
            }
            let succeeded = endings.filter { if case .succeeded = $0 { true } else { false } }.count
            let cancelled = endings.filter { if case .cancelled = $0 { true } else { false } }.count
            print(
                "Cancel stress: \(Self.count) requests in \(Int(seconds)) s: \(succeeded) succeeded, \(cancelled) cancelled"
            )
            #expect(endings.count == Self.count)
            #expect(failures.isEmpty, "unexpected failures: \(failures.prefix(5))")
            #expect(succeeded > Self.count / 2)
            #expect(cancelled > Self.count / 20)
        }

        /// Sends one request and cancels it at `moment`.
        private static func send(
            _ form: TestForm, moment: Moment, index: Int, _ plain: Session, _ watched: Session,
            _ watcher: CancelAtStart
        ) async -> Ending {
            let session = moment == .atResume || index.isMultiple(of: 4) ? watched : plain
            let request = session.request(form)
            switch moment {
            case .beforeStart:
                request.cancel()
            case .atResume:
                watcher.watch(request)
            case .afterDelay:
                let delay = Double.random(in: 0...0.003)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { request.cancel() }
            case .afterCompletion, .never:
                break
            }
            let ending: Ending
            do {
                _ = try await request.data()
                ending = .succeeded
            } catch  where error.isCancelled {
                ending =
                    moment == .afterCompletion || moment == .never
                    ? .failed("cancelled by nobody") : .cancelled
            } catch {
                ending = .failed(String(describing: error))
            }
            if moment == .afterCompletion {
                request.cancel()
                guard !request.isCancelled else {
                    return .failed("a cancel after completion changed the request")
                }
            }
            return ending
        }
    }
}
