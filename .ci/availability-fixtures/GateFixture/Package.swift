// swift-tools-version: 6.2
import PackageDescription

// A fixture for .ci/availability-test: the same floor as Formwork, sources that use APIs newer
// than it with and without guards. Not part of the Formwork package.
let package = Package(
    name: "GateFixture",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    targets: [.target(name: "GateFixture")],
    swiftLanguageModes: [.v6]
)
