import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

/// `PluginEngine` as LoomWorkspace's plugin host: the limits a workspace is opened with become
/// the Lua state's, and what the workspace reads through the protocol is the engine's.
final class PluginEngineHostTests: XCTestCase {
    func testPluginLimitsBecomeTheLuaStatesLimits() throws {
        let limits = PluginLimits(timeBudgetMilliseconds: 250, memoryMegabytes: 48, totalTimeBudgetMilliseconds: 7_000)
        let host = try PluginEngine.host(limits)
        let engine = try XCTUnwrap(host as? PluginEngine)
        XCTAssertEqual(engine.state.limits, LuaLimits(timeBudgetMilliseconds: 250, memoryMegabytes: 48, totalTimeBudgetMilliseconds: 7_000))
        XCTAssertEqual(engine.state.limits.memoryBytes, 48 << 20)
        XCTAssertEqual(engine.state.limits.totalTimeBudgetNanoseconds, 7_000_000_000)
    }

    func testTheWorkspaceReadsTheEngineThroughTheProtocol() throws {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = ResolveTests.repo + "/docs/examples/movies"
        o.standardPlugins = ResolveTests.repo + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertTrue(ws.pluginHost === ws.engine)
        XCTAssertTrue(ws.factory === ws.engine.factory)
        XCTAssertEqual(ws.pluginHost.plugins.map(\.info.name), ws.engine.plugins.map(\.info.name))
        XCTAssertEqual(ws.pluginHost.plugins.filter(\.loaded).count, 7, "\(ws.loadDiagnostics.items)")
        XCTAssertEqual(ws.pluginHost.registeredFlows.map(\.name), ws.engine.luaFlows.map(\.name))
        // The request budget: the configured limits are back after the request.
        let before = ws.engine.state.limits
        let inside = ws.pluginHost.withRequestBudget(deadline: Deadline(seconds: 5)) { ws.engine.state.limits }
        XCTAssertLessThanOrEqual(inside.totalTimeBudgetNanoseconds, 5_000_000_000)
        XCTAssertGreaterThan(inside.totalTimeBudgetNanoseconds, 0)
        XCTAssertEqual(ws.engine.state.limits, before)
    }
}
