import Foundation
import Testing

@testable import Formwork

@Suite("RequestModel: phases, observation and drivers")
@MainActor
struct RequestModelTests {
    private struct Item: Sendable, Equatable {
        let id: Int
    }

    private static let failure = NetworkError(.unacceptableStatusCode, failureReason: "404")

    @Test("A new model is idle; a preview model starts in the phase it is given")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func initialPhases() {
        let idle = RequestModel<Item>()
        #expect(idle.phase.isLoading == false && idle.phase.value == nil && idle.phase.error == nil)
        #expect(idle.value == nil && idle.message == nil && idle.fractionCompleted == nil)
        #expect(!idle.canReload)

        let loaded = RequestModel(.succeeded(Item(id: 7)))
        #expect(loaded.value == Item(id: 7))
        #expect(loaded.phase.value == Item(id: 7))

        let failed = RequestModel<Item>(.failed(Self.failure))
        #expect(failed.message == Self.failure.userMessage)
        #expect(failed.phase.error?.kind == .unacceptableStatusCode)
        #expect(!failed.canReload)  // no request drove it
    }

    @Test("Each event changes exactly its properties, in order, on the main actor")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func observedChanges() {
        let model = RequestModel<Item>()
        let changes = ModelChanges(model)
        let driver = model.attach {}

        model.begin(from: driver)
        #expect(changes.names == ["phase"])  // message and progress were already nil

        changes.reset()
        model.report(TransferProgress(completedBytes: 50, totalBytes: 100), from: driver)
        model.report(TransferProgress(completedBytes: 50, totalBytes: 100), from: driver)  // same fraction
        #expect(changes.names == ["fractionCompleted"])
        #expect(model.fractionCompleted == 0.5)

        changes.reset()
        model.finish(.failure(Self.failure), from: driver)
        #expect(changes.names == ["phase", "message"])
        #expect(model.message == Self.failure.userMessage)

        changes.reset()
        model.begin(from: driver)  // a retry: loading again, message and progress cleared
        #expect(changes.names == ["phase", "message", "fractionCompleted"])
        #expect(model.message == nil && model.fractionCompleted == nil)

        changes.reset()
        model.finish(.success(Item(id: 1)), from: driver)
        #expect(changes.names == ["phase", "value"])
        #expect(model.value == Item(id: 1))

        changes.reset()
        model.begin(from: driver)
        model.finish(.failure(NetworkError(.cancelled, failureReason: "cancelled")), from: driver)
        #expect(changes.names == ["phase", "phase"])  // loading, then idle: a cancel says nothing
        #expect(model.message == nil)
        #expect(model.value == Item(id: 1))  // the last success stays
        #expect(model.phase.isLoading == false && model.phase.value == nil)
    }

    @Test("Only the latest driver changes the model; progress counts only while loading")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func latestDriverWins() {
        let model = RequestModel<Item>()
        let first = model.attach {}
        model.begin(from: first)
        let second = model.attach {}
        model.begin(from: second)
        let changes = ModelChanges(model)

        model.report(TransferProgress(completedBytes: 1, totalBytes: 2), from: first)
        model.finish(.success(Item(id: 1)), from: first)
        model.finish(.success(Item(id: 2)), from: nil)  // a driver that is gone
        #expect(changes.names.isEmpty)
        #expect(model.phase.isLoading)

        model.finish(.success(Item(id: 2)), from: second)
        model.report(TransferProgress(completedBytes: 1, totalBytes: 2), from: second)  // after the end
        #expect(changes.names == ["phase", "value"])
        #expect(model.value == Item(id: 2))
    }

    @Test("reload() re-sends through the latest driver, only once the request ended")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func retryRules() {
        let model = RequestModel<Item>()
        model.reload()  // nothing drove it: nothing to send, no crash
        var sent: [String] = []
        _ = model.attach { sent.append("old") }
        let driver = model.attach { sent.append("new") }
        model.begin(from: driver)
        #expect(!model.canReload)
        model.reload()  // still loading
        #expect(sent.isEmpty)
        model.finish(.failure(Self.failure), from: driver)
        #expect(model.canReload)
        let changes = ModelChanges(model)
        model.reload()
        #expect(sent == ["new"])
        #expect(model.phase.isLoading)  // at once, before the request says so
        #expect(changes.names == ["phase", "message"])
        model.begin(from: driver)  // the request's own begin for the new attempt changes nothing
        #expect(changes.names == ["phase", "message"])
        model.finish(.failure(NetworkError(.cancelled, failureReason: "cancelled")), from: driver)
        #expect(!model.canReload)  // a cancel is final
        model.reload()
        #expect(sent == ["new"])
    }
}
