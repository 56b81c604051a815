import Foundation
import XCTest

/// The module shape (README, "Layout of this repository"): the CLI (and the server executable, once it
/// exists) and LoomWorkspace never import Lua — neither LuaRuntime, CLua, CLuaSystem nor
/// LoomPlugins — in any source file nor in their Package.swift dependencies. Plugins are reached
/// through LoomWorkspace's `PluginHost`, opened by LoomCommands' `Workspace.open`.
final class ModuleBoundaryTests: XCTestCase {
    static let luaModules: Set<String> = ["LuaRuntime", "CLua", "CLuaSystem", "LoomPlugins"]
    /// Source folders that must not import them (a folder that does not exist yet is skipped,
    /// but `host` and `LoomWorkspace` must exist).
    static let luaFreeFolders = ["Sources/host", "Sources/host-serve", "Sources/LoomWorkspace"]
    static let luaFreeTargets = ["host", "LoomWorkspace"]

    /// Every module a Swift source imports, with its line: `import M`, `@testable import M`,
    /// `@_exported import M`, `import struct M.Name`, `import M.Sub`. Comments are not imports.
    static func imports(in source: String) -> [(module: String, line: Int)] {
        var out: [(String, Int)] = []
        var inBlockComment = false
        for (i, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if inBlockComment {
                guard let end = line.range(of: "*/") else { continue }
                line = line[end.upperBound...]
                inBlockComment = false
            }
            var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if let first = words.first, first.hasPrefix("/*") {
                if !line.contains("*/") { inBlockComment = true }
                continue
            }
            // Attributes first (`@testable`, `@_exported`, `@preconcurrency`, `@_implementationOnly`).
            while let w = words.first, w.hasPrefix("@") { words.removeFirst() }
            guard words.first == "import", words.count >= 2 else { continue }
            var path = words[1]
            let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
            if kinds.contains(path), words.count >= 3 { path = words[2] }
            let module = String(path.prefix { $0 != "." && $0 != ";" })
            out.append((module, i + 1))
        }
        return out
    }

    func testScannerFindsEveryFormOfImport() {
        let text = """
        import Foundation
        @testable import LoomPlugins
        @_exported import CLua
        import struct LuaRuntime.LuaLimits
        // import CLuaSystem (a comment)
        /* import LuaRuntime
           import LoomPlugins */
        import LoomWorkspace
        """
        let found = Self.imports(in: text)
        XCTAssertEqual(found.map(\.module), ["Foundation", "LoomPlugins", "CLua", "LuaRuntime", "LoomWorkspace"])
        XCTAssertEqual(found.map(\.line), [1, 2, 3, 4, 8])
    }

    func testHostAndWorkspaceSourcesImportNoLua() throws {
        let fm = FileManager.default
        var checked = 0
        var offenders: [String] = []
        for folder in Self.luaFreeFolders {
            let dir = Host.repoRoot.appendingPathComponent(folder)
            guard fm.fileExists(atPath: dir.path) else {
                XCTAssertFalse(folder == "Sources/host" || folder == "Sources/LoomWorkspace", "\(folder) is missing")
                continue
            }
            let files = try XCTUnwrap(fm.enumerator(atPath: dir.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
            XCTAssertFalse(files.isEmpty, "no Swift file in \(folder)")
            for f in files {
                let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
                checked += 1
                for (module, line) in Self.imports(in: text) where Self.luaModules.contains(module) {
                    offenders.append("\(folder)/\(f):\(line): import \(module)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 10, "too few files read: the folders moved?")
        XCTAssertEqual(offenders, [], "these must reach plugins through LoomWorkspace's PluginHost (README, \"Layout of this repository\")")
    }

    /// Package.swift: the dependencies of `host` and `LoomWorkspace` (the text between the
    /// target's `dependencies:` and its `path:`) name none of the Lua modules.
    func testPackageDependenciesOfHostAndWorkspaceNameNoLua() throws {
        let package = try String(contentsOf: Host.repoRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        for target in Self.luaFreeTargets {
            // The target (not the product of the same name): its name followed by its dependencies.
            let start = try XCTUnwrap(package.range(of: #"name:\s*"\#(target)",\s*dependencies:"#, options: .regularExpression),
                                      "no target \(target) with dependencies in Package.swift")
            let end = try XCTUnwrap(package.range(of: "path:", range: start.upperBound..<package.endIndex), "target \(target) has no path")
            let declaration = package[start.upperBound..<end.lowerBound]
            XCTAssertTrue(declaration.contains("\"LoomCore\""), "target \(target): its dependencies were not found")
            for module in Self.luaModules.sorted() {
                XCTAssertFalse(declaration.contains("\"\(module)\""), "target \(target) depends on \(module)")
            }
        }
    }

    /// Issue 37: no screen pipeline is assembled outside LoomCommands. Code that locates,
    /// parses, checks, patches, resolves or lays out a screen goes through `ScreenPipeline`'s
    /// stages (prepare, resolution, layoutEngine); only LoomCommands (the pipeline), LoomWorkspace
    /// (what it calls), the libraries below them and the benches (which time those calls) may
    /// make these calls themselves.
    func testNoScreenPipelineIsAssembledOutsideLoomCommands() throws {
        let fm = FileManager.default
        let sources = Host.repoRoot.appendingPathComponent("Sources")
        let allowed: Set<String> = ["LoomCommands", "LoomWorkspace", "LoomCore", "LoomLayout", "LoomRender", "LoomDiff", "LoomText", "loom-bench", "FuzzTargets"]
        let assembling = try NSRegularExpression(pattern:
            #"\.resolve\([^)\n]*check:|\bresolveUncached\(|\.resolver\([^)\n]*check:|\bLayoutEngine\(|\bFontLibrary\.shared\b|\blocateScreen\(|\bScreenParser\.parse\(|\bScreenChecker\.check\(|\bScreenPatch\.load\("#)
        var checked = 0
        var offenders: [String] = []
        for module in try fm.contentsOfDirectory(atPath: sources.path).sorted() where !allowed.contains(module) {
            let dir = sources.appendingPathComponent(module)
            guard let walk = fm.enumerator(atPath: dir.path) else { continue }
            for case let f as String in walk where f.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
                checked += 1
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let l = String(line)
                    if l.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                    if assembling.firstMatch(in: l, range: NSRange(l.startIndex..., in: l)) != nil {
                        offenders.append("Sources/\(module)/\(f):\(n + 1): \(l.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "too few files read: the folders moved?")
        XCTAssertEqual(offenders, [], "go through ScreenPipeline (Sources/LoomCommands/ScreenPipeline.swift) instead")
    }
}
