// swift-tools-version:6.0
import PackageDescription

/// Release executables are linked by the toolchain's lld with packed relative relocations
/// (DT_RELR, glibc >= 2.36) and without exporting every symbol to the dynamic table: the binary
/// stays position-independent, but the loader no longer reads a 3 MB relocation table and a
/// 2.4 MB symbol table at start. Idle RSS 39 -> 29 MiB (bench/README.md, "Idle RSS"). The
/// functions that run at start-up and on the hot requests are placed together
/// (linking/hot-symbols.txt, from linking/update-hot-symbols): 29 -> 23 MiB.
let packageRoot = String(#filePath.dropLast("/Package.swift".count))
/// The Swift runtime and Foundation are linked in statically (`-static-stdlib`), here rather than
/// by `swift build --static-swift-stdlib`: that flag also compiles every module against the static
/// resource directory, which has no `Testing` module, so the tests could not share the release
/// build (scripts/build-release). Modules compiled against the shared resource directory do not
/// name the static archives' own dependencies, so they are named here (lld reads archives in any
/// order).
let staticRuntime = [
    "-static-stdlib", "-lswiftSynchronization", "-l_FoundationICU", "-lCoreFoundation", "-l_FoundationCShims",
    "-l_FoundationCollections",
]
func releaseLinking(_ extraLibraries: [String] = []) -> [LinkerSetting] {
    [
        .unsafeFlags(
            staticRuntime + extraLibraries + [
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
                "--no-export-dynamic",
                "-Xlinker", "--symbol-ordering-file=\(packageRoot)/linking/hot-symbols.txt",
                "-Xlinker", "--no-warn-symbol-ordering",
            ],
            .when(platforms: [.linux], configuration: .release)
        )
    ]
}

/// This package's library modules are compiled with testability in release too, so the Swift tests
/// build against the release build (`scripts/build-release --build-tests`) and CI builds once. Only
/// these modules: the dependencies, which no test imports `@testable`, stay as they ship.
let testableInRelease: [SwiftSetting] = [.unsafeFlags(["-enable-testing"], .when(configuration: .release))]

let package = Package(
    name: "authemu",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authemu", targets: ["authemu"]),
        /// `authemu mcp` runs this: a separate binary, so the daemon does not load Foundation's
        /// networking (libcurl) that the MCP SDK and the helper library bring.
        .executable(name: "authemu-mcp", targets: ["authemu-mcp"]),
        /// For app test targets (XCUITest) and integration suites: Foundation only.
        .library(name: "AuthEmulatorTesting", targets: ["AuthEmulatorTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "AuthEmulator",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CCrypt",
                "CBuildInfo",
            ],
            swiftSettings: testableInRelease
        ),
        /// The commit the binary was built from (scripts/build-release writes it; `BuildVersion`).
        .target(name: "CBuildInfo"),
        /// SIGHUP ignored from the process's first instruction for `serve` and `exec`.
        .target(name: "CEarlySignals"),
        /// glibc's `mallopt`, for the daemon's allocator settings (`MallocTuning`).
        .systemLibrary(name: "CMalloc"),
        /// Debian's libxcrypt, for the bcrypt hashes of imported users.
        .systemLibrary(
            name: "CCrypt",
            pkgConfig: "libxcrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        .target(
            name: "AuthEmulatorSQLite",
            dependencies: [
                "AuthEmulator",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: testableInRelease
        ),
        /// The store on PostgreSQL, for several daemons sharing one database.
        .target(
            name: "AuthEmulatorPostgres",
            dependencies: [
                "AuthEmulator",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testableInRelease
        ),
        .target(
            name: "AuthEmulatorHTTP",
            dependencies: [
                "AuthEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Mustache", package: "swift-mustache"),
                "CQREncode",
            ],
            swiftSettings: testableInRelease
        ),
        /// Debian's libqrencode, for the inspector's QR codes of TOTP enrollment URIs.
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .executableTarget(
            name: "authemu",
            dependencies: [
                "CSystemd",
                "CMalloc",
                "CEarlySignals",
                "AuthEmulator",
                "AuthEmulatorSQLite",
                "AuthEmulatorPostgres",
                "AuthEmulatorHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            linkerSettings: releaseLinking()
        ),
        .executableTarget(
            name: "authemu-bench-baseline",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/authemu-bench-baseline",
            linkerSettings: releaseLinking()
        ),
        .executableTarget(
            name: "authemu-bench-floor",
            dependencies: [
                "AuthEmulatorSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/authemu-bench-floor",
            linkerSettings: releaseLinking()
        ),
        .executableTarget(
            name: "authemu-bench-proxy",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/authemu-bench-proxy",
            linkerSettings: releaseLinking()
        ),
        .target(name: "AuthEmulatorTesting", swiftSettings: testableInRelease),
        .executableTarget(
            name: "authemu-mcp",
            dependencies: [
                "AuthEmulatorTesting",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/authemu-mcp",
            /// FoundationNetworking's archive needs its URLSession shim and Debian's libcurl.
            linkerSettings: releaseLinking(["-l_CFURLSessionInterface", "-lcurl"])
        ),
        .testTarget(name: "AuthEmulatorTestingTests", dependencies: ["AuthEmulatorTesting"]),
        .testTarget(
            name: "AuthEmulatorTests",
            dependencies: [
                "AuthEmulator",
                "AuthEmulatorSQLite",
                "AuthEmulatorPostgres",
                "AuthEmulatorHTTP",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
    ]
)
