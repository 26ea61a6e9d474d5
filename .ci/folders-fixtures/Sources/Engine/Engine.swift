// Fixture of .ci/folders-test: the engine uses Values, and (the upward arrow) Feature's Cache and a
// member Feature adds to Engine. Names of UI only in comments and strings: Screen, Model, showScreen.
final class Engine {
    let policy = Policy()
    let timeout: Seconds = clamp(1)
    var cache: Cache?  // the upward arrow Engine -> Feature

    func describe() -> String {
        """
        Screen "Model" \(policy.retries) showScreen
        """ + #"Screen \(Model)"# + "\(timeout) Model"
    }

    func run() {
        /* Screen /* nested Model */ showScreen */
        warmUp()  // a member of `extension Engine` declared in Feature: Engine -> Feature
    }
}
