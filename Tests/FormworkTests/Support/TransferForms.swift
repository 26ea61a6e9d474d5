import Foundation

@testable import Formwork

/// A download form whose every part is set by the test.
struct TestDownloadForm: DownloadFormable {
    var url: String
    var destination: URL
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
    var parameters: Parameters = [:]
    var destinationOptions: DownloadDestinationOptions = []
}

/// A download form that keeps the default destination (a new temp file).
struct DefaultDestinationForm: DownloadFormable {
    let url: String
}

struct TestDataUpload: UploadDataFormable {
    var url: String
    var data: Data
    var headers: HTTPHeaders = [:]
}

struct TestFileUpload: UploadFileFormable {
    var url: String
    var fileURL: URL
    var method: HTTPMethod = .put
}

struct TestStreamUpload: UploadStreamFormable {
    var url: String
    var payload: Data
    var fails = false
    /// Counts how many streams were made (one per attempt).
    let made = Counter()

    struct NoStream: Error {}

    func makeStream() throws -> InputStream {
        made.increment()
        if fails { throw NoStream() }
        return InputStream(data: payload)
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Protected(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.current }
}

/// Records every progress value it is shown, on the main actor.
@MainActor
final class ProgressRecorder: Progressable {
    private(set) var values: [TransferProgress] = []
    func progress(_ progress: TransferProgress) { values.append(progress) }

    /// `true` when no value went backwards.
    var isMonotonic: Bool {
        zip(values, values.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }
    }
}
