// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Release builds of the executables link the Swift runtime and Foundation statically on
/// Linux (as `swift build --static-swift-stdlib` would): every call into the runtime (a
/// retain, a task allocation, an executor check) is then a direct call, and the runtime's
/// thread-local reads need no `__tls_get_addr`. The executable's own module is compiled
/// against the static libraries' module files so the link pulls in what they need, among
/// it the system's libcurl for static FoundationNetworking (`libcurl4-openssl-dev`).
/// Apple platforms have no static Swift runtime.
let staticRuntimeInRelease: BuildSettingCondition = .when(platforms: [.linux], configuration: .release)
let executableSettings: [SwiftSetting] = strictSettings + [.unsafeFlags(["-static-stdlib"], staticRuntimeInRelease)]
let executableLinking: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], staticRuntimeInRelease)]

/// `CHAINLAB_SAFE_PATHS=1` in the environment of `swift build` or `swift test` compiles the
/// obvious code of every unsafe fast path in place of the fast one: each lives in an
/// `Internals/` folder of its module, and docs/performance.md (Unsafe fast paths) says what it
/// buys. CI runs the tests both ways.
let safePaths: [SwiftSetting] = ["", "0"].contains(Context.environment["CHAINLAB_SAFE_PATHS"] ?? "") ? [] : [.define("CHAINLAB_SAFE_PATHS")]
/// The settings of a module that holds unsafe fast paths.
let fastPathSettings: [SwiftSetting] = strictSettings + safePaths

/// The modules a key's frame and the findings worker run in are optimized in debug builds
/// too: `swift run chainlab` is a debug build, and unoptimized they made a key on a busy lab
/// cost several times what it costs in release (`input.latency.1k` in docs/benchmarks.md,
/// "The debug build"). The other modules stay unoptimized for the debugger. SwiftPM accepts
/// these flags in a package depended on by path or branch (as `chainlab new` writes it), not
/// by version.
let optimizedInDebug: [SwiftSetting] = strictSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "ChainLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ChainKit", targets: ["ChainKit"]),
        .library(name: "ChainLabInspector", targets: ["Inspector", "InspectorModel", "InspectorView", "Lab", "Timeline", "TimelineFilter", "Exports"]),
        .executable(name: "chainlab", targets: ["chainlab"]),
    ],
    targets: [
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        // libcurl, which FoundationNetworking runs on: https:// under another trust than the
        // system's (`HTTPSTrust` in Outbound). Linux only, as FoundationNetworking is.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .target(
            name: "Vocabulary",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VocabularyTests",
            dependencies: ["Vocabulary"],
            swiftSettings: strictSettings
        ),
        // The value types beneath both the chain runtime and the store: HTTP fields and
        // messages, JSON, `PullStream`, digests. `ChainKit` re-exports it.
        .target(
            name: "Wire",
            dependencies: [
                "Vocabulary",
                .target(name: "CCrypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "WireTests",
            dependencies: ["Wire", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ChainKit",
            dependencies: ["Vocabulary", "Wire"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "chainlab",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "TimelineFilter", "Exports", "Backend", "Outbound", "Serve", "Lab", "TerminalUI", "Inspector"],
            swiftSettings: executableSettings,
            linkerSettings: executableLinking
        ),
        .executableTarget(
            name: "inspect-my-chain",
            dependencies: ["ChainKit", "Lab", "Inspector"],
            path: "Examples/InspectMyChain",
            swiftSettings: executableSettings,
            linkerSettings: executableLinking
        ),
        .target(
            name: "UpstreamStyle",
            dependencies: ["ChainKit"],
            path: "Examples/UpstreamStyle"
        ),
        .executableTarget(
            name: "chainlab-bench",
            dependencies: ["ChainKit", "Timeline", "Lab", "TerminalUI", "Inspector"],
            swiftSettings: executableSettings,
            linkerSettings: executableLinking
        ),
        .testTarget(
            name: "ChainKitTests",
            dependencies: ["Vocabulary", "ChainKit", "HTTPServer", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Timeline",
            dependencies: ["Vocabulary", "Wire"],
            swiftSettings: optimizedInDebug
        ),
        // The filter language of `/` and `trace --filter`, over the store's events.
        .target(
            name: "TimelineFilter",
            dependencies: ["Vocabulary", "Wire", "Timeline"],
            swiftSettings: optimizedInDebug
        ),
        // A run's events written out: HAR, OTLP, curl, TraceJSON, text.
        .target(
            name: "Exports",
            dependencies: ["Vocabulary", "Wire", "Timeline"],
            swiftSettings: optimizedInDebug
        ),
        .testTarget(
            name: "TimelineTests",
            dependencies: ["Timeline", "TimelineFilter", "Exports", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        .target(
            name: "TerminalUI",
            dependencies: ["CNcursesw", "Vocabulary"],
            swiftSettings: optimizedInDebug
        ),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI"],
            exclude: ["__Snapshots__"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "HTTPServer",
            dependencies: ["Vocabulary"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Outbound",
            dependencies: [
                "Vocabulary", "ChainKit", "Timeline", "HTTPServer", "CZlib",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Backend",
            dependencies: ["Vocabulary", "ChainKit"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Serve",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "Exports", "Backend", "HTTPServer", "Outbound"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Stops",
            dependencies: ["Wire", "Timeline"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Scheduling",
            dependencies: ["Vocabulary", "Wire", "Timeline", "TimelineFilter", "Stops"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Instrumentation",
            dependencies: ["ChainKit", "Timeline", "Stops"],
            swiftSettings: fastPathSettings
        ),
        .target(
            name: "Findings",
            dependencies: ["Wire", "Timeline"],
            swiftSettings: optimizedInDebug
        ),
        .target(
            name: "Lint",
            dependencies: ["Vocabulary", "ChainKit", "Timeline"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Scenarios",
            dependencies: ["Vocabulary", "ChainKit", "Scheduling", "Instrumentation", "Backend", "Lint"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Lab",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "TimelineFilter", "Exports", "Stops", "Scheduling", "Instrumentation", "Backend", "Findings", "Lint", "Outbound", "Scenarios"],
            swiftSettings: strictSettings
        ),
        // The inspector's state, messages and effects, its keys and config, and the lab as
        // its screen reads it. `Inspector` re-exports it.
        .target(
            name: "InspectorModel",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "TimelineFilter", "Exports", "Findings", "Lab", "TerminalUI"],
            swiftSettings: optimizedInDebug
        ),
        // What a state shows: the layout, the panes, the overlays, the status line, and which
        // keys act now. `Inspector` re-exports it.
        .target(
            name: "InspectorView",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "TimelineFilter", "Exports", "Findings", "Lab", "TerminalUI", "InspectorModel"],
            swiftSettings: optimizedInDebug
        ),
        .target(
            name: "Inspector",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "TimelineFilter", "Exports", "Lab", "TerminalUI", "InspectorModel", "InspectorView"],
            swiftSettings: optimizedInDebug
        ),
        .testTarget(
            name: "InspectorTests",
            dependencies: ["Backend", "Findings", "Inspector"],
            exclude: ["__Snapshots__"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LabTests",
            dependencies: ["Vocabulary", "Stops", "Scheduling", "Instrumentation", "Backend", "Findings", "Outbound", "Serve", "Lab", "TestSupport", "UpstreamStyle", "CZlib"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChainLabCLITests",
            dependencies: ["chainlab", "ChainKit", "HTTPServer", "TestSupport"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
