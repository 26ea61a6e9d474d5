// swift-tools-version: 6.2
import PackageDescription

// Formwork has no package dependencies: only Foundation (and FoundationNetworking on Linux).
// The demo server, demo CLI and benchmark live in the separate `Examples` package.
let package = Package(
    name: "Formwork",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "Formwork", targets: ["Formwork"])
    ],
    targets: [
        .target(
            name: "Formwork",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Test helpers shared by the test targets: the demo server harness and a free-port finder.
        .target(
            name: "FormworkTestSupport",
            path: "Tests/FormworkTestSupport",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "FormworkTests",
            dependencies: ["Formwork", "FormworkTestSupport"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // An "app module" of its own: its `extension Formable { var headers }` must win over the
        // library default for its forms, as MBNetwork apps set shared headers.
        .testTarget(
            name: "AppModuleTests",
            dependencies: ["Formwork", "FormworkTestSupport"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Built the way a new Xcode 26 app target is (default main-actor isolation and
        // "approachable concurrency"): it holds the README's quick start and the Getting started
        // article's code verbatim and runs them against the demo server.
        .testTarget(
            name: "MainActorAppTests",
            dependencies: ["Formwork", "FormworkTestSupport"],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        // libFuzzer targets (see CONTRIBUTING.md, "Fuzzing"); plain builds compile them too.
        .executableTarget(name: "FuzzJSONKeyPath", dependencies: ["Formwork"], path: "Fuzz/FuzzJSONKeyPath"),
        .executableTarget(
            name: "FuzzQueryEncoder", dependencies: ["Formwork"], path: "Fuzz/FuzzQueryEncoder"),
        .executableTarget(name: "FuzzHeaders", dependencies: ["Formwork"], path: "Fuzz/FuzzHeaders"),
        .executableTarget(name: "FuzzMultipart", dependencies: ["Formwork"], path: "Fuzz/FuzzMultipart"),
        .executableTarget(
            name: "FuzzEventStream", dependencies: ["Formwork"], path: "Fuzz/FuzzEventStream"),
        .executableTarget(name: "FuzzCacheEntry", dependencies: ["Formwork"], path: "Fuzz/FuzzCacheEntry"),
        // Fills a disk cache until the HTTP cache suite kills it (crash safety).
        .executableTarget(name: "CacheWriter", dependencies: ["Formwork"], path: "Tests/CacheWriter"),
        // Enqueues and sends the outbox's 200 requests until the outbox crash suite kills it.
        .executableTarget(
            name: "OutboxChild", dependencies: ["Formwork"], path: "Tests/OutboxChild",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        // Sends one request through Formwork and prints the outcome as JSON: the HTTPS suite runs it
        // in a child process that trusts the test CA (see Tests/FormworkTestSupport/TrustedChild.swift).
        .executableTarget(
            name: "HTTPSProbe", dependencies: ["Formwork", "FormworkTestSupport"], path: "Tests/HTTPSProbe",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ],
    swiftLanguageModes: [.v6]
)
