import Foundation

/// `swift run --package-path Examples Demo [--interactive | --auto] [--size BYTES] ...`
///
/// Plays Formwork's scenarios against a demo server it starts itself and exits 0 only when every
/// scenario behaved as shown.
@main
struct DemoMain {
    @MainActor
    static func main() async {
        let options: Options
        do {
            guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
                print(Options.usage)
                exit(0)
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(Data("Demo: \(error)\n\n\(Options.usage)\n".utf8))
            exit(2)
        }
        let status = await Runner(options: options).run()
        exit(status)
    }
}
