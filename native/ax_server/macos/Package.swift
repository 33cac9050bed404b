// swift-tools-version:5.9
// ax_server for macOS: Rein's accessibility helper (docs/ax-protocol.md). NOT COMPILED in Rein's Linux
// development environment: build and test it on a Mac (`swift build -c release`, then build-app.sh).
import PackageDescription

let package = Package(
    name: "ax_server",
    platforms: [.macOS(.v13)],
    targets: [
        .executableTarget(
            name: "ax_server",
            path: "Sources/ax_server",
            linkerSettings: [
                .linkedFramework("ApplicationServices"),
                .linkedFramework("Carbon"), // Text Input Sources and UCKeyTranslate: key codes of the current layout
                .linkedFramework("AppKit"),
                .linkedFramework("ImageIO"),
            ]
        ),
    ]
)
