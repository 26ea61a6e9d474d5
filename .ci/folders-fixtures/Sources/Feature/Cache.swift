// Fixture of .ci/folders-test: a feature above the engine (Feature -> Engine), extending it.
struct Cache: Plug {
    func plug(into engine: Engine) {}
}

extension Engine {
    func warmUp() {}
}
