// Fixture of .ci/folders-test: the top layer.
struct Screen {
    let engine: Engine
    let cache: Cache
}

struct Model {}

extension Screen {
    func showScreen() {}
}
