import Foundation
import Testing

@testable import Formwork

@Suite("NetworkError as a LocalizedError")
struct NetworkErrorLocalizedTests {
    private let error = NetworkError(
        .invalidHeader, failureReason: "Header \"Authorization\": invalid value character U+000A.",
        underlyingError: URLError(.badURL))

    @Test("localizedDescription is the user message, not Foundation's generic sentence")
    func localizedDescription() {
        #expect(error.localizedDescription == error.userMessage)
        #expect(!error.localizedDescription.contains("could not be completed"))
        let existential: any Error = error
        #expect(existential.localizedDescription == error.userMessage)
        #expect((existential as? any LocalizedError)?.errorDescription == error.userMessage)
    }

    @Test("A transport error reads as its class of failure")
    func transportError() {
        let error = NetworkError.transport(URLError(.timedOut), request: nil, response: nil, data: nil)
        #expect(error.localizedDescription.hasPrefix(MessageCatalog.current.timedOut))
    }

    @Test("The bridged NSError keeps the technical reason")
    func bridged() {
        let bridged = error as NSError
        #expect(bridged.localizedDescription == error.userMessage)
        let reason: String = error.failureReason
        #expect(bridged.localizedFailureReason == reason)
    }

    @Test("failureReason reads the same text wherever it is read, optional or not")
    func failureReasonEverywhere() {
        let reason: String = error.failureReason
        #expect(reason.contains("Authorization"))
        #expect("\(error.failureReason)" == reason)
        let optional: NetworkError? = error
        #expect((optional?.failureReason ?? "") == reason)
        let asOptional: String? = error.failureReason
        #expect(asOptional == reason)
        #expect((error as any LocalizedError).failureReason == reason)
        func generic<E: LocalizedError>(_ error: E) -> String? { error.failureReason }
        #expect(generic(error) == reason)
    }
}
