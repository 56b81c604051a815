// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Loom",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "host", targets: ["host"]),
        // `host serve` runs it from beside `host`: the only product that links SwiftNIO.
        .executable(name: "host-serve", targets: ["host-serve"]),
        .library(name: "LoomCore", targets: ["LoomCore"]),
        .library(name: "LoomNavigation", targets: ["LoomNavigation"]),
        .library(name: "LoomPlugins", targets: ["LoomPlugins"]),
        .library(name: "LoomWorkspace", targets: ["LoomWorkspace"]),
        .library(name: "LoomCommands", targets: ["LoomCommands"]),
        .library(name: "LoomTesting", targets: ["LoomTesting"]),
        .library(name: "LoomStyles", targets: ["LoomStyles"]),
        .library(name: "LoomSolver", targets: ["LoomSolver"]),
        .library(name: "LoomLayout", targets: ["LoomLayout"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The system's Lua 5.4 (liblua5.4-dev), with a small C shim for the macros Swift cannot import,
        // the allocator with a memory cap and the instruction-count hook that enforces the time budget.
        .systemLibrary(
            name: "CLuaSystem",
            path: "Sources/CLuaSystem",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        .target(
            name: "CLua",
            dependencies: ["CLuaSystem"],
            path: "Sources/CLua",
            // The Lua library's functions called through the GOT, not a PLT stub: a rule call
            // makes a dozen of them (bench rule_call: 85-89 -> 80-82 ns a host call on the
            // 2-core machine; scripts/bench-history/README.md, "Issue 38 on the same machine, a fourth set").
            cSettings: [.unsafeFlags(["-fno-plt"], .when(platforms: [.linux]))]
        ),
        // Swift over the C API: states, values, references, protected calls, sandbox, limits.
        .target(
            name: "LuaRuntime",
            dependencies: ["CLua"],
            path: "Sources/LuaRuntime"
        ),
        // The engine: JSON with locations, screens, rules and their evaluator, factory, resolver,
        // diagnostics, output.
        .target(
            name: "LoomCore",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomCore"
        ),
        // Lua plugins feeding the core's factory.
        // Flows, steps, the navigator, the explorer and graph rendering (screens enter only
        // through the caller's closures).
        .target(
            name: "LoomNavigation",
            dependencies: ["LoomCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomNavigation"
        ),
        // A project opened: loom.json, the screen store and parse cache, users, flows, styles and
        // the device context, named rules, plugin discovery. Plugins are reached through the
        // `PluginHost` protocol it declares: no Lua here.
        .target(
            name: "LoomWorkspace",
            dependencies: ["LoomCore", "LoomNavigation", "LoomStyles", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomWorkspace"
        ),
        // Lua plugins feeding the core's factory; `PluginEngine` is LoomWorkspace's plugin host.
        .target(
            name: "LoomPlugins",
            dependencies: ["LuaRuntime", "LoomCore", "LoomNavigation", "LoomStyles", "LoomWorkspace"],
            path: "Sources/LoomPlugins"
        ),
        // Scenarios, snapshots, structural diffs and reports (`host test`). A session's screens
        // are prepared and resolved through LoomCommands' ScreenPipeline.
        .target(
            name: "LoomTesting",
            dependencies: ["LuaRuntime", "LoomCore", "LoomNavigation", "LoomWorkspace", "LoomPlugins", "LoomCommands", "LoomDiff", "LoomLayout", "LoomRender", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomTesting"
        ),
        // Styles: MRGArchitect's property files (imports, device cascade, size-class traits,
        // typed values) and the device catalog.
        .target(
            name: "LoomStyles",
            dependencies: ["LoomCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomStyles"
        ),
        // A Cassowary constraint solver (incremental simplex with strengths, as kiwi) and the
        // constraint language parser. No Swift package for it is available on these machines.
        .target(
            name: "LoomSolver",
            dependencies: [],
            path: "Sources/LoomSolver"
        ),
        // FreeType 2 from the system (libfreetype-dev) for glyph metrics.
        .systemLibrary(
            name: "CFreeType",
            path: "Sources/CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]
        ),
        // HarfBuzz from the system (libharfbuzz-dev) for text shaping.
        .systemLibrary(
            name: "CHarfBuzz",
            path: "Sources/CHarfBuzz",
            pkgConfig: "harfbuzz",
            providers: [.apt(["libharfbuzz-dev"])]
        ),
        // Text metrics: installed fonts by name (fonts-dejavu-core, fonts-noto-core for other
        // scripts), text shaped with HarfBuzz, vertical metrics from FreeType, wrapping to a width
        // and a line limit.
        .target(
            name: "LoomText",
            dependencies: ["CFreeType", "CHarfBuzz"],
            path: "Sources/LoomText"
        ),
        // The layout pass (Mortar, Matrioska, Spots): a resolved tree, its constraints, stacks,
        // containers, collections and intrinsic sizes into frames for a device; findings.
        .target(
            name: "LoomLayout",
            dependencies: ["LoomCore", "LoomStyles", "LoomSolver", "LoomText", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomLayout"
        ),
        // Wireframe pictures of laid-out screens: SVG, PNG through rsvg-convert, matrices.
        .target(
            name: "LoomRender",
            dependencies: ["LoomCore", "LoomStyles", "LoomLayout", "LoomText"],
            path: "Sources/LoomRender"
        ),
        // Changes between two resolutions of a screen, classified as Spots' differ does
        // (inserted, deleted, moved, hard and soft updates), and graph edges gained or lost.
        .target(
            name: "LoomDiff",
            dependencies: ["LoomCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomDiff"
        ),
        // Spots' view-state cache: resolved screens saved as JSON under a key and an input hash.
        .target(
            name: "LoomCache",
            dependencies: ["LoomCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomCache"
        ),
        // Whole populations (`host eval`, `host matrix`): users streamed from JSON Lines, CSV or
        // users.json through screens on worker threads (one workspace each), in input order. The
        // screens are prepared by LoomCommands' ScreenPipeline (LoomCommands does not import this).
        .target(
            name: "LoomPopulation",
            dependencies: ["LoomCore", "LoomWorkspace", "LoomCommands", "LoomNavigation", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomPopulation"
        ),
        // One request, one path: ScreenRequest → ScreenPipeline.resolve → ScreenResult and its
        // text and JSON, for every command that resolves a screen and for host-serve
        // (docs/cli.md); `host check`'s matrix (Check/); opening a workspace with the Lua engine
        // (WorkspaceOpening).
        .target(
            name: "LoomCommands",
            dependencies: ["LoomCore", "LoomWorkspace", "LoomPlugins", "LoomNavigation", "LoomStyles", "LoomLayout", "LoomText", "LoomDiff", "LoomRender", "LoomCache",
                           .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomCommands"
        ),
        // What the `host` and `host-serve` executables share: the engine's and the user's flags
        // (ArgumentParser option groups), the console, the file watcher (as SwiftPM's CoreCommands
        // is for swift-build and swift-test).
        .target(
            name: "LoomCommandLine",
            dependencies: ["LoomCore", "LoomWorkspace", "LoomCommands", "LoomStyles",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/LoomCommandLine"
        ),
        // `host-serve`: resolved screens over HTTP (SwiftNIO's HTTP/1 server), one workspace per worker thread.
        .target(
            name: "LoomServe",
            dependencies: ["LoomCore", "LoomWorkspace", "LoomCache", "LoomCommands", "LoomNavigation", "LoomStyles", "LoomLayout",
                           "LoomRender", "LoomText", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/LoomServe"
        ),
        // The HTTP server's executable: its flags, the preview page, the watcher; `host serve`
        // runs it. No Lua imports (plugins are opened by LoomCommands).
        .executableTarget(
            name: "host-serve",
            dependencies: ["LoomCore", "LoomWorkspace", "LoomServe", "LoomCommandLine", "LoomCommands",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/host-serve"
        ),
        // The CLI: parses arguments, formats results. No logic of its own; no Lua (plugins are
        // reached through LoomWorkspace's protocol, opened by LoomCommands).
        .executableTarget(
            name: "host",
            dependencies: [
                // Not LoomServe: building host compiles no SwiftNIO (`host serve` runs host-serve).
                "LoomCore", "LoomNavigation", "LoomWorkspace", "LoomCommands", "LoomCommandLine", "LoomTesting", "LoomStyles", "LoomDiff", "LoomCache", "LoomPopulation",
                "LoomText", "LoomLayout", "LoomRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/host"
        ),
        .executableTarget(
            name: "loom-bench",
            dependencies: ["LoomCore", "LoomNavigation", "LoomWorkspace", "LoomPlugins", "LoomTesting", "LuaRuntime", "LoomStyles", "LoomSolver", "LoomPopulation", "LoomCache", "LoomText", "LoomLayout"],
            path: "Sources/loom-bench"
        ),
        // Fuzz targets (docs/fuzzing.md, scripts/fuzz): the targets' bodies, then one executable
        // each, which is libFuzzer's entry point under -sanitize=fuzzer -D LOOM_FUZZING and a
        // replay driver otherwise (FuzzEntry). FuzzDriver declares libFuzzer's driver.
        .target(
            name: "FuzzTargets",
            dependencies: ["LoomCore", "LoomNavigation", "LoomWorkspace", "LoomPlugins", "LoomPopulation", "LoomStyles", "LoomDiff", "LoomSolver", "LuaRuntime", "FuzzDriver", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Sources/FuzzTargets"
        ),
        .target(name: "FuzzDriver", path: "Sources/FuzzDriver"),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzTargets"], path: "Sources/FuzzJSON"),
        .executableTarget(name: "FuzzScreen", dependencies: ["FuzzTargets"], path: "Sources/FuzzScreen"),
        .executableTarget(name: "FuzzRules", dependencies: ["FuzzTargets"], path: "Sources/FuzzRules"),
        .executableTarget(name: "FuzzTZif", dependencies: ["FuzzTargets"], path: "Sources/FuzzTZif"),
        .executableTarget(name: "FuzzFlows", dependencies: ["FuzzTargets"], path: "Sources/FuzzFlows"),
        .executableTarget(name: "FuzzLuaBridge", dependencies: ["FuzzTargets"], path: "Sources/FuzzLuaBridge"),
        .executableTarget(name: "FuzzNamedRules", dependencies: ["FuzzTargets"], path: "Sources/FuzzNamedRules"),
        .executableTarget(name: "FuzzJourneys", dependencies: ["FuzzTargets"], path: "Sources/FuzzJourneys"),
        .executableTarget(name: "FuzzRecords", dependencies: ["FuzzTargets"], path: "Sources/FuzzRecords"),
        .executableTarget(name: "FuzzServeBody", dependencies: ["FuzzTargets"], path: "Sources/FuzzServeBody"),
        .executableTarget(name: "FuzzPatches", dependencies: ["FuzzTargets"], path: "Sources/FuzzPatches"),
        .executableTarget(name: "FuzzConstraints", dependencies: ["FuzzTargets"], path: "Sources/FuzzConstraints"),
        .executableTarget(name: "FuzzStyles", dependencies: ["FuzzTargets"], path: "Sources/FuzzStyles"),
        .executableTarget(name: "FuzzExpressions", dependencies: ["FuzzTargets"], path: "Sources/FuzzExpressions"),
        .executableTarget(name: "FuzzMessages", dependencies: ["FuzzTargets"], path: "Sources/FuzzMessages"),
        .executableTarget(name: "FuzzFlatViews", dependencies: ["FuzzTargets"], path: "Sources/FuzzFlatViews"),
        .executableTarget(name: "FuzzFieldReads", dependencies: ["FuzzTargets"], path: "Sources/FuzzFieldReads"),
        .testTarget(name: "LuaRuntimeTests", dependencies: ["LuaRuntime"], path: "Tests/LuaRuntimeTests"),
        .testTarget(name: "LoomCoreTests", dependencies: ["LoomCore"], path: "Tests/LoomCoreTests"),
        .testTarget(name: "LoomNavigationTests", dependencies: ["LoomNavigation", "LoomCore"], path: "Tests/LoomNavigationTests"),
        .testTarget(
            name: "LoomPluginsTests", dependencies: ["LoomPlugins", "LoomWorkspace", "LoomTesting", "LoomNavigation", "LoomCore", "LuaRuntime"],
            path: "Tests/LoomPluginsTests", exclude: ["Fixtures"]),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets"], path: "Tests/FuzzTests"),
        .testTarget(name: "LoomWorkspaceTests", dependencies: ["LoomWorkspace", "LoomNavigation", "LoomCore"], path: "Tests/LoomWorkspaceTests"),
        .testTarget(name: "LoomStylesTests", dependencies: ["LoomStyles", "LoomCore"], path: "Tests/LoomStylesTests"),
        .testTarget(name: "LoomCacheTests", dependencies: ["LoomCache", "LoomCore"], path: "Tests/LoomCacheTests"),
        .testTarget(name: "LoomDiffTests", dependencies: ["LoomDiff", "LoomCore", "FuzzTargets"], path: "Tests/LoomDiffTests"),
        .testTarget(name: "LoomSolverTests", dependencies: ["LoomSolver"], path: "Tests/LoomSolverTests"),
        .testTarget(name: "LoomTextTests", dependencies: ["LoomText"], path: "Tests/LoomTextTests"),
        .testTarget(name: "LoomLayoutTests", dependencies: ["LoomLayout", "LoomText", "LoomSolver", "LoomStyles", "LoomCore"], path: "Tests/LoomLayoutTests"),
        .testTarget(name: "LoomRenderTests", dependencies: ["LoomRender", "LoomLayout", "LoomText", "LoomStyles", "LoomCore"], path: "Tests/LoomRenderTests"),
        .testTarget(name: "LoomPopulationTests", dependencies: ["LoomPopulation", "LoomWorkspace", "LoomPlugins", "LoomStyles", "LoomCore", "FuzzTargets"], path: "Tests/LoomPopulationTests"),
        .testTarget(name: "HostTests", dependencies: ["LoomCore"], path: "Tests/HostTests"),
        .testTarget(name: "LoomCommandsTests", dependencies: ["LoomCommands", "LoomWorkspace", "LoomPlugins", "LoomStyles", "LoomCore"], path: "Tests/LoomCommandsTests"),
        .testTarget(name: "LoomServeTests", dependencies: ["LoomServe", "LoomCore"], path: "Tests/LoomServeTests"),
    ],
    swiftLanguageModes: [.v6]
)
