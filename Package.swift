// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ChainLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ChainKit", targets: ["ChainKit"]),
        .library(name: "ChainLabInspector", targets: ["Inspector", "Lab", "Timeline"]),
        .executable(name: "chainlab", targets: ["chainlab"]),
    ],
    targets: [
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        .target(
            name: "Vocabulary",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VocabularyTests",
            dependencies: ["Vocabulary"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ChainKit",
            dependencies: [
                "Vocabulary",
                .target(name: "CCrypto", condition: .when(platforms: [.linux, .android, .windows, .openbsd])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "chainlab",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "Lab", "TerminalUI", "Inspector"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "inspect-my-chain",
            dependencies: ["ChainKit", "Lab", "Inspector"],
            path: "Examples/InspectMyChain",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "chainlab-bench",
            dependencies: ["ChainKit", "Timeline", "Lab", "TerminalUI", "Inspector"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChainKitTests",
            dependencies: ["ChainKit", "HTTPServer", "Vocabulary"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Timeline",
            dependencies: ["Vocabulary", "ChainKit"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TimelineTests",
            dependencies: ["Timeline"],
            swiftSettings: strictSettings
        ),
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        .target(
            name: "TerminalUI",
            dependencies: ["CNcursesw", "Vocabulary"],
            swiftSettings: strictSettings
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
            name: "Lab",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "HTTPServer"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Inspector",
            dependencies: ["Vocabulary", "ChainKit", "Timeline", "Lab", "TerminalUI"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "InspectorTests",
            dependencies: ["Inspector"],
            exclude: ["__Snapshots__"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LabTests",
            dependencies: ["Vocabulary", "Lab"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChainLabCLITests",
            dependencies: ["chainlab", "ChainKit"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
