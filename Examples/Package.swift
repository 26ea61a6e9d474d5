// swift-tools-version: 6.2
import PackageDescription

// The examples that go with Formwork: a demo HTTP server (plain SwiftNIO) that the library's
// integration tests start on 127.0.0.1 (and the same server with HTTPS listeners for the HTTPS
// suites), a demo CLI, a benchmark, a memory check and a transport on AsyncHTTPClient.
// The Formwork library itself has no dependencies; only this package names SwiftNIO.
let package = Package(
    name: "FormworkExamples",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "DemoServer", targets: ["DemoServer"]),
        .executable(name: "DemoServerTLS", targets: ["DemoServerTLS"]),
        .executable(name: "MemoryCheck", targets: ["MemoryCheck"]),
        .executable(name: "Demo", targets: ["Demo"]),
        .executable(name: "Benchmark", targets: ["Benchmark"]),
        .executable(name: "LinkProxy", targets: ["LinkProxy"]),
        // A Formwork transport on AsyncHTTPClient (SwiftNIO) for Linux services: two files to copy.
        .library(name: "FormworkAsyncHTTPClient", targets: ["FormworkAsyncHTTPClient"]),
    ],
    dependencies: [
        // The Formwork library (used by the demo CLI and benchmark targets, not by DemoServer).
        .package(name: "Formwork", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        // TLS for DemoServerTLS's HTTPS listeners (`--tls-port`), which the HTTPS suites test against,
        // and for AsyncHTTPClient. Nothing the demo builds links it (BoringSSL is ~700 C files).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The HTTP client under the FormworkAsyncHTTPClient transport.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The demo server: its routes, handler and options, run by the two executables below.
        .target(
            name: "DemoServerCore",
            dependencies: [
                "ExampleSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                // Optimised even in debug builds (the tests build it in debug): the server hashes
                // uploads and generates /files content byte by byte, ~5x faster with -O, so it stays
                // a light load next to the tests on a 2-core machine.
                .unsafeFlags(["-O"]),
            ]
        ),
        // The plain HTTP demo server (no TLS library): the demo, benchmark, MemoryCheck and tests start it.
        .executableTarget(
            name: "DemoServer",
            dependencies: ["DemoServerCore"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The same server with HTTPS listeners (`--tls-port`) on swift-nio-ssl, for the HTTPS suites.
        .executableTarget(
            name: "DemoServerTLS",
            dependencies: [
                "DemoServerCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Shared by the examples: starting the demo server, measuring memory.
        .target(
            name: "ExampleSupport",
            // -O even in debug builds: the demo server and the demo hash hundreds of MiB with MD5.
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .unsafeFlags(["-O"])]
        ),
        // Downloads and uploads 1 GiB through Formwork and checks peak RSS stays flat.
        .executableTarget(
            name: "MemoryCheck",
            // LinkProxy is a dependency only so that building MemoryCheck builds the proxy it can launch.
            dependencies: [
                .product(name: "Formwork", package: "Formwork"), "ExampleSupport", "LinkProxy",
                "FormworkAsyncHTTPClient",
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // A TCP proxy that delays and paces every byte: loopback made to behave like a real link
        // (`--link rtt=40ms,rate=400mbit`). Plain sockets and threads; run in its own process.
        .executableTarget(
            name: "LinkProxy",
            dependencies: ["ExampleSupport"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "Demo",
            // DemoServer is a dependency only so that building Demo builds the server it launches.
            dependencies: [.product(name: "Formwork", package: "Formwork"), "ExampleSupport", "DemoServer"],
            // -O even in debug builds: the demo hashes hundreds of MiB to check its transfers.
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .unsafeFlags(["-O"])]
        ),
        // Runs the same work through raw URLSession and through Formwork and prints the ratios.
        // It starts the DemoServer built beside it: depending on it builds both with one command.
        .executableTarget(
            name: "Benchmark",
            dependencies: [
                .product(name: "Formwork", package: "Formwork"), "ExampleSupport", "DemoServer", "LinkProxy",
                // The transports section runs bare AsyncHTTPClient beside Formwork over its transport.
                "FormworkAsyncHTTPClient", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Formwork's Transport on AsyncHTTPClient: Examples/Sources/FormworkAsyncHTTPClient is one
        // file a service can copy into its own target.
        .target(
            name: "FormworkAsyncHTTPClient",
            dependencies: [
                .product(name: "Formwork", package: "Formwork"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // AsyncHTTPClient's own dependencies, named for the types the transport uses.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Drives the transport directly against the demo server (DemoServer and DemoServerTLS are
        // dependencies only so that building the tests builds the servers they start).
        .testTarget(
            name: "FormworkAsyncHTTPClientTests",
            dependencies: [
                "FormworkAsyncHTTPClient", "ExampleSupport", "DemoServer", "DemoServerTLS",
                "FormworkTestSupport",
                .product(name: "Formwork", package: "Formwork"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The root package's test harness (starts the demo server), shared through a symbolic link.
        .target(
            name: "FormworkTestSupport",
            path: "Tests/FormworkTestSupport",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // Formwork's behaviour suite (the root package's integration suites, through symbolic links
        // in Tests/FormworkBehaviourTests) run against the AsyncHTTPClient transport. DemoServer and
        // DemoServerTLS (for its HTTPSTests) are dependencies so that building the tests builds them.
        .testTarget(
            name: "FormworkBehaviourTests",
            dependencies: [
                "FormworkAsyncHTTPClient", "FormworkTestSupport", "DemoServer", "DemoServerTLS",
                .product(name: "Formwork", package: "Formwork"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            exclude: ["README.md"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
