// Fixture of .ci/folders-test: a subfolder is a node of its own; it may use its parent.
protocol Plug {
    func plug(into engine: Engine)
}
