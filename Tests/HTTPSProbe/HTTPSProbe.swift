import Formwork
import FormworkTestSupport
import Foundation

/// Sends one GET through Formwork and prints what happened as one line of JSON
/// (``HTTPSProbeReport``): `HTTPSProbe URL ["Name: value"]...`.
///
/// The HTTPS suite runs it in a child process whose trust store holds only the test CA (see
/// `TrustedChild`): on Linux that is the only way to trust a CA without changing the system's
/// store, because FoundationNetworking reads libcurl's built-in CA bundle and no setting of ours.
@main
enum HTTPSProbe {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        guard let url = arguments.first else {
            FileHandle.standardError.write(Data("usage: HTTPSProbe URL [\"Name: value\"]...\n".utf8))
            exit(2)
        }
        var headers = HTTPHeaders()
        for argument in arguments.dropFirst() {
            guard let colon = argument.firstIndex(of: ":") else {
                FileHandle.standardError.write(Data("HTTPSProbe: not a header: \(argument)\n".utf8))
                exit(2)
            }
            let value = argument[argument.index(after: colon)...].drop { $0 == " " }
            headers[String(argument[..<colon])] = String(value)
        }
        var words = MessageCatalog.english
        words.showsCodes = false
        var report = HTTPSProbeReport()
        do {
            report.body = try await Prober().request(ProbeForm(url: url, headers: headers)).string()
        } catch {
            report.errorKind = error.kind.name
            report.urlErrorCode = error.urlErrorCode?.rawValue
            report.userMessage = error.userMessage(using: words)
            report.failureReason = error.failureReason
        }
        do {
            let line = try JSONEncoder().encode(report)
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("HTTPSProbe: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// Sends the probe's one request.
struct Prober: Requestable {}

/// A GET of `url` with `headers`, with a timeout well inside the suite's.
struct ProbeForm: RequestFormable {
    let url: String
    let headers: HTTPHeaders
    var idleTimeout: TimeInterval? { 30 }
}
