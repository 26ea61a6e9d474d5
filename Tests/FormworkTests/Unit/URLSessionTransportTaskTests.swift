import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in transport's task without a network: its tasks are made and never resumed.
@Suite("URLSession transport task")
struct URLSessionTransportTaskTests {
    /// Events that nothing reads.
    private struct IgnoredEvents: TransportEvents {
        func receiveResponseHead(_ head: TransportResponseHead) -> Bool { true }
        func receiveBody(_ body: Data) {}
        func sent(totalBytes: Int64, expectedBytes: Int64?) {}
        func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? { request }
        func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? { nil }
        func finish(_ error: (any Error)?) {}
    }

    private func task() throws -> URLSessionTransportTask {
        let url = try #require(URL(string: "http://127.0.0.1/a"))
        let made = URLSessionTransport().makeTask(
            for: TransportRequest(urlRequest: URLRequest(url: url)), events: IgnoredEvents())
        return try #require(made as? URLSessionTransportTask)
    }

    @Test("A cancel waiting for URLSession holds no lock: a failure reported meanwhile goes through")
    func cancelHoldsNoLock() throws {
        let task = try task()
        task.cancel {
            // corelibs' cancel waits for libcurl's queue, where corelibs may ask this task for a
            // new body stream meanwhile, which records a failure. Under the task's lock that call
            // would wait until this returns, and the wait would run out.
            returnsOnAnotherThread("a failure is reported while the task is being cancelled") {
                task.fail(with: URLError(.networkConnectionLost))
            }
        }
    }

    @Test("After a cancel, a question is never answered; before it, it is")
    func answersStopAtTheCancel() throws {
        let task = try task()
        var answers = 0
        task.answer { answers += 1 }
        task.cancel {}
        task.answer { answers += 1 }
        #expect(answers == 1)
    }
}
