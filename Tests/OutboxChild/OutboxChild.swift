import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A child process for the outbox's crash test (`OutboxCrashTests`), which kills it at random
/// moments: it opens an ``Outbox`` on a directory, enqueues what is missing of 200 requests, and
/// sends until nothing is pending.
///
/// Usage: `OutboxChild <outbox directory> <server base URL> <run id> <mode>`, the mode one of
///
/// - `enqueue`: enqueues every request not pending yet (the server is down, so a request not
///   pending was never enqueued), then closes the outbox and exits 0;
/// - `send`: enqueues nothing and exits 0 once every pending request has been delivered;
/// - `die-after-N`: as `send`, but kills itself with SIGKILL as soon as the Nth response has
///   arrived, before the outbox sees it (the server applied the request; its answer is lost).
///
/// Request `i` (0..<200) is `POST <base>/idempotency/apply?counter=crash-<run id>-<i>`, tagged
/// `req-i`: a JSON body, or for every 10th one the upload of a file the child writes first to
/// `<outbox directory>-uploads/`. Each line of standard output is written whole with one `write`:
/// `set-aside NAME REASON` (entries found damaged at open), `pending N` (at open and at the end),
/// `enqueued I`, `ready` (all enqueued), `delivered TAG`, `failed TAG WHY` (a final failure), and
/// `await` before each step (see ``Pace``).
@main
enum OutboxChild {
    /// How many requests the test makes.
    static let requestCount = 200

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 5 else {
            fail("usage: OutboxChild <outbox directory> <server base URL> <run id> <mode>", status: 2)
        }
        let directory = URL(fileURLWithPath: arguments[1])
        let baseURL = arguments[2]
        let runID = arguments[3]
        let mode = arguments[4]
        var dieAfter: Int?
        if mode.hasPrefix("die-after-") {
            guard let count = Int(mode.dropFirst("die-after-".count)), count > 0 else {
                fail("OutboxChild: bad mode \(mode)", status: 2)
            }
            dieAfter = count
        } else if mode != "enqueue" && mode != "send" {
            fail("OutboxChild: bad mode \(mode)", status: 2)
        }
        let pace = Pace()
        let session = Session { configuration in
            if let dieAfter { configuration.interceptors.eventMonitors = [KillAfterResponses(dieAfter)] }
            configuration.interceptors.adapters = [
                Adapter { request in
                    await pace.step()
                    return request
                }
            ]
        }
        let options = Outbox.Options(backoff: RetryPolicy(baseDelay: 0.05, maximumDelay: 0.5))
        let outbox: Outbox
        do {
            outbox = try Outbox(directory: directory, session: session, options: options)
        } catch {
            fail("OutboxChild: cannot open the outbox: \(error)", status: 1)
        }
        for entry in outbox.setAside {
            say("set-aside \(entry.fileName) \(entry.reason)")
        }
        let pending = await outbox.pending()
        say("pending \(pending.count)")
        if mode == "enqueue" {
            let uploads = URL(fileURLWithPath: directory.path + "-uploads")
            let requests = Requests(baseURL: baseURL, runID: runID, uploads: uploads, pace: pace)
            await requests.enqueueMissing(in: outbox, pending: Set(pending.compactMap(\.tag)))
            say("ready")
            say("pending \(await outbox.pending().count)")
            await outbox.close()
            exit(0)
        }
        say("ready")
        // Nothing is enqueued in this mode: the run is over when each pending request was delivered.
        var left = pending.count
        if left > 0 {
            for await delivery in outbox.deliveries() {
                let tag = delivery.entry.tag ?? delivery.entry.id.uuidString
                switch delivery.result {
                case .success: say("delivered \(tag)")
                case .failure(let error): say("failed \(tag) \(error)")
                }
                left -= 1
                if left == 0 { break }
            }
        }
        say("pending \(await outbox.pending().count)")
        await outbox.close()
        exit(0)
    }

    /// Writes `line` and a newline to standard output with one `write` (unbuffered, so that the
    /// test sees it at once and a kill never leaves it half written in a buffer).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `message` to standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}

/// The test's 200 requests.
struct Requests {
    let baseURL: String
    let runID: String
    /// Where the files of the file uploads are written before they are enqueued.
    let uploads: URL
    /// The test's pace: one enqueue per step.
    let pace: Pace

    /// Enqueues, in order, each request whose tag is not in `pending`, printing `enqueued I`.
    func enqueueMissing(in outbox: Outbox, pending: Set<String>) async {
        for index in 0..<OutboxChild.requestCount where !pending.contains("req-\(index)") {
            await pace.step()
            let url = "\(baseURL)/idempotency/apply?counter=crash-\(runID)-\(index)"
            do {
                if index % 10 == 0 {
                    let file = try writeFile(for: index)
                    try await outbox.enqueue(FileApplyForm(url: url, fileURL: file), tag: "req-\(index)")
                } else {
                    try await outbox.enqueue(ApplyForm(url: url, note: "req-\(index)"), tag: "req-\(index)")
                }
            } catch {
                OutboxChild.fail("OutboxChild: cannot enqueue req-\(index): \(error)", status: 1)
            }
            OutboxChild.say("enqueued \(index)")
        }
    }

    /// Writes the file uploaded by request `index`: 48 KiB that name it (the same bytes each time,
    /// so the server's replay check, which compares bodies, holds for a file written again).
    private func writeFile(for index: Int) throws -> URL {
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let file = uploads.appendingPathComponent("req-\(index).txt")
        let line = "request \(index) of run \(runID)\n"
        var text = ""
        while text.utf8.count < 48 * 1024 { text += line }
        try Data(text.utf8).write(to: file)
        return file
    }
}

/// `POST /idempotency/apply` with a small JSON body, kept in the outbox's entry file.
struct ApplyForm: RequestFormable {
    let url: String
    let note: String
    var method: HTTPMethod { .post }
    var parameters: Parameters { ["note": note] }
    var encoding: ParameterEncoding { .json }
}

/// `POST /idempotency/apply` with a file as its body, copied into the outbox's `bodies/` folder.
struct FileApplyForm: UploadFileFormable {
    let url: String
    let fileURL: URL
}

/// Kills this process with SIGKILL when the `limit`th request finishes with a response: monitors
/// run before the request's caller (here the outbox) is resumed, so the server has applied the
/// request and the outbox never learns it.
final class KillAfterResponses: EventMonitor, @unchecked Sendable {  // `answered` is guarded by `lock`
    private let limit: Int
    private let lock = NSLock()
    private var answered = 0

    init(_ limit: Int) {
        self.limit = limit
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        guard metrics.response != nil else { return }
        let count = lock.withLock {
            answered += 1
            return answered
        }
        if count == limit { kill(getpid(), SIGKILL) }
    }
}

/// The test's pace, so that its kills land however busy the machine is: before each step (an
/// enqueue, or an attempt to send, from the session's adapter) the child prints `await` and waits
/// for one byte on its standard input. When the input ends it runs free: a run the test does not
/// kill, or one that kills itself (`die-after-N`), needs no steps.
final class Pace: @unchecked Sendable {  // `isFree` is guarded by `lock`
    private let lock = NSLock()
    private var isFree = false

    /// Waits for the test's byte, unless the input has ended.
    func step() async {
        guard !lock.withLock({ isFree }) else { return }
        OutboxChild.say("await")
        let stepped = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                var byte: UInt8 = 0
                var count = read(STDIN_FILENO, &byte, 1)
                while count < 0 && errno == EINTR { count = read(STDIN_FILENO, &byte, 1) }
                continuation.resume(returning: count == 1)
            }
        }
        if !stepped { lock.withLock { isFree = true } }
    }
}
