import Foundation
import LoomCore
import LoomNavigation
import LoomWorkspace
import XCTest

/// A plugin host without Lua: records what the workspace asks of it and registers nothing.
/// This target links no Lua at all, so these tests also show LoomWorkspace opens a project
/// without it.
final class RecordingHost: PluginHost {
    let factory = Factory()
    var plugins: [LoadedPlugin] = []
    var diagnostics = Diagnostics()
    var registeredFlows: [RegisteredFlow] = []
    var logToStderr = false
    let limits: PluginLimits
    var loadedFolders: [PluginFolder] = []
    var budgets: [Deadline?] = []

    init(limits: PluginLimits) { self.limits = limits }

    func load(folders: [PluginFolder], limits: FileLimits) {
        loadedFolders += folders
        for f in folders {
            plugins.append(LoadedPlugin(info: PluginInfo(name: f.name, version: "0", folder: f.path), file: f.path + "/plugin.lua", loaded: false))
        }
        diagnostics.error("recording host: \(folders.count) folders not loaded", at: SourceLocation(file: "recording"))
    }

    func flowDefinitions(diagnostics: inout Diagnostics) -> [FlowDefinition] { [] }

    func withRequestBudget<T>(deadline: Deadline?, _ body: () -> T) -> T {
        budgets.append(deadline)
        return body()
    }
}

/// Hands the host it made back to the test (factories are `@Sendable`; one test thread).
final class HostBox: @unchecked Sendable {
    var host: RecordingHost?
}

final class PluginHostTests: XCTestCase {
    static let repo: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    func options(_ box: HostBox) -> Workspace.Options {
        var o = Workspace.Options()
        o.project = Self.repo + "/docs/examples/movies"
        o.standardPlugins = Self.repo + "/Plugins"
        o.limits = PluginLimits(timeBudgetMilliseconds: 7, memoryMegabytes: 9, totalTimeBudgetMilliseconds: 11_000)
        o.verbose = true
        o.pluginHost = { limits in
            let h = RecordingHost(limits: limits)
            box.host = h
            return h
        }
        return o
    }

    /// Without a plugin host the workspace does not open (fail closed: not a project whose
    /// components all look unknown), and says which option is missing.
    func testOpeningWithoutAPluginHostIsAnError() {
        var o = Workspace.Options()
        o.project = Self.repo + "/docs/examples/movies"
        XCTAssertThrowsError(try Workspace(options: o)) { error in
            XCTAssertTrue(error is WorkspaceOpenError, "\(error)")
            XCTAssertTrue("\(error)".contains("Workspace.Options.pluginHost"), "\(error)")
        }
    }

    /// The workspace gives the host its limits and `--verbose`, asks it to load the standard
    /// plugins then the project's plugin folders in order, and reports its load problems.
    func testTheWorkspaceLoadsPluginFoldersThroughTheHost() throws {
        let box = HostBox()
        let ws = try Workspace(options: options(box))
        let host = try XCTUnwrap(box.host)
        XCTAssertTrue(ws.pluginHost === host)
        XCTAssertEqual(host.limits, PluginLimits(timeBudgetMilliseconds: 7, memoryMegabytes: 9, totalTimeBudgetMilliseconds: 11_000))
        XCTAssertTrue(host.logToStderr)
        XCTAssertEqual(host.loadedFolders.map(\.name), ["basic", "matrioska", "mortar", "spots", "targeting", "card", "movies"])
        XCTAssertEqual(host.loadedFolders.last?.path, Self.repo + "/docs/examples/movies/plugins/movies")
        XCTAssertTrue(ws.loadDiagnostics.items.contains { $0.message == "recording host: 7 folders not loaded" }, "\(ws.loadDiagnostics.items)")
        // The project itself is read without any plugin: users, screens, the flows file.
        XCTAssertEqual(Set(ws.users.profiles.keys), ["gold", "free", "guest", "gold_at_risk"])
        XCTAssertEqual(ws.screenFiles()["home"], Self.repo + "/docs/examples/movies/screens/home.json")
        XCTAssertTrue(ws.flows().0.names.contains("main"))
    }

    /// With no registrations a screen's components are errors at their lines (nothing is
    /// dropped silently), and the parse cache hands out the same parse twice.
    func testAScreenWithoutRegistrationsFailsClosed() throws {
        let box = HostBox()
        let ws = try Workspace(options: options(box))
        let file = try ws.locateScreen("home").get()
        let loaded = ws.screen(file: file)
        XCTAssertNotNil(loaded.screen)
        let errors = loaded.diagnostics.errors
        XCTAssertFalse(errors.isEmpty)
        XCTAssertTrue(errors.allSatisfy { $0.location?.file == file && ($0.location?.line ?? 0) > 0 }, "\(errors)")
        XCTAssertTrue(ws.screen(file: file).screen?.root === loaded.screen?.root, "parsed once")
    }

    /// The plugin host's request budget wraps what it is given.
    func testRequestBudgetGoesThroughTheHost() throws {
        let box = HostBox()
        let ws = try Workspace(options: options(box))
        let answer = ws.pluginHost.withRequestBudget(deadline: nil) { 42 }
        XCTAssertEqual(answer, 42)
        XCTAssertEqual(box.host?.budgets.count, 1)
    }
}
