import ExampleSupport
import Formwork
import FormworkAsyncHTTPClient
import Foundation

/// `MemoryCheck sessions [--count N] [--transport urlsession|ahc] [--slack K]`: makes N sessions
/// (default 1,000), sends one GET from each and drops it, then does the same invalidating each
/// with `invalidate()`, and checks after each pass that the process's open descriptors and threads
/// come back to within K (default 16) of where they were after a warm-up. Services that make a
/// session per tenant or user must not run out of descriptors: a dropped session once kept 3
/// sockets for good. (Read from `/proc/self`: Linux only.) Over AsyncHTTPClient the sessions share
/// one transport, as apps do: the client's pool keeps what it keeps, not one socket per session.
enum SessionsCheck {
    private struct GetForm: RequestFormable {
        let url: String
    }

    static func run(_ arguments: [String]) async {
        let count = MemoryCheck.value(after: "--count", in: arguments).flatMap(Int.init) ?? 1_000
        let transport = MemoryCheck.value(after: "--transport", in: arguments) ?? "urlsession"
        let slack = MemoryCheck.value(after: "--slack", in: arguments).flatMap(Int.init) ?? 16
        guard count >= 1, ["urlsession", "ahc"].contains(transport) else {
            print("usage: MemoryCheck sessions [--count N] [--transport urlsession|ahc] [--slack K]")
            exit(2)
        }
        do {
            let server = try DemoServerProcess()
            let shared: (any Transport)? = transport == "ahc" ? AsyncHTTPClientTransport() : nil
            let form = GetForm(url: "\(server.baseURL)/json/array")
            func makeSession() -> Session { Session { $0.transport = shared } }
            _ = try await makeSession().request(form).data()  // warm-up: what the process keeps anyway
            guard let baseline = resources() else {
                print("MemoryCheck sessions: no /proc/self here; nothing to count")
                return
            }
            for invalidating in [false, true] {
                for _ in 0..<count {
                    let session = makeSession()
                    _ = try await session.request(form).data()
                    if invalidating { session.invalidate() }
                }
                let pass = invalidating ? "invalidated" : "dropped"
                var now = resources() ?? baseline
                let deadline = Date(timeIntervalSinceNow: 20)
                while now.descriptors > baseline.descriptors + slack
                    || now.threads > baseline.threads + slack,
                    Date() < deadline
                {
                    try await Task.sleep(nanoseconds: 10_000_000)
                    now = resources() ?? baseline
                }
                print(
                    "MemoryCheck sessions (\(transport)): \(count) sessions \(pass), one GET each: "
                        + "\(now.descriptors) descriptors and \(now.threads) threads, from \(baseline.descriptors) "
                        + "and \(baseline.threads) (slack \(slack))")
                guard now.descriptors <= baseline.descriptors + slack, now.threads <= baseline.threads + slack
                else {
                    print("MemoryCheck FAIL: the \(pass) sessions kept descriptors or threads")
                    exit(1)
                }
            }
            withExtendedLifetime(server) {}
            print("MemoryCheck sessions OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }

    /// Open descriptors and threads of this process, or `nil` without `/proc`.
    private static func resources() -> (descriptors: Int, threads: Int)? {
        let files = FileManager.default
        guard let descriptors = try? files.contentsOfDirectory(atPath: "/proc/self/fd"),
            let threads = try? files.contentsOfDirectory(atPath: "/proc/self/task")
        else { return nil }
        return (descriptors.count, threads.count)
    }
}
