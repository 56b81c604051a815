import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

/// The hostile-script corpus (Tests/Fixtures/hostile/<case>/plugin.lua), loaded with the good
/// plugin into one engine: every broken plugin is reported with its name, file and line, the
/// host stays fast, and the good plugin keeps working.
final class HostileTests: XCTestCase {
    /// The time budget is wall-clock time: 300 ms, so that the memory bombs (tens of
    /// milliseconds alone) reach the memory limit first even when a loaded machine stalls the
    /// test for a while (at 100 ms, `table_bomb` and `memory_in_rule` met the time limit in one
    /// run of the whole suite on two busy cores).
    static let limits = LuaLimits(timeBudgetMilliseconds: 300, memoryMegabytes: 32)

    /// A plugin that must fail to load: the diagnostic names `plugin` and `file`, has
    /// `message` in it, and points at `line` (nil: Lua gives no line, e.g. a memory error).
    struct LoadFailure {
        var folder: String
        var plugin: String
        var message: String
        var line: Int?
        var anyLine = false
    }

    static let loadFailures: [LoadFailure] = [
        LoadFailure(folder: "loop_at_load", plugin: "loop_at_load", message: "time limit exceeded (300 ms)", line: 3),
        LoadFailure(folder: "loop_in_pcall", plugin: "loop_in_pcall", message: "time limit exceeded (300 ms)", line: nil, anyLine: true),
        LoadFailure(folder: "loop_in_coroutine", plugin: "loop_in_coroutine", message: "time limit exceeded (300 ms)", line: nil, anyLine: true),
        LoadFailure(folder: "recursion", plugin: "recursion", message: "memory limit exceeded (32 MiB)", line: nil),
        LoadFailure(folder: "string_rep_huge", plugin: "string_rep_huge", message: "resulting string too large", line: 2),
        LoadFailure(folder: "string_rep_bomb", plugin: "string_rep_bomb", message: "memory limit exceeded (32 MiB)", line: nil),
        LoadFailure(folder: "concat_bomb", plugin: "concat_bomb", message: "memory limit exceeded (32 MiB)", line: nil),
        LoadFailure(folder: "table_bomb", plugin: "table_bomb", message: "memory limit exceeded (32 MiB)", line: nil),
        LoadFailure(folder: "pattern_bomb", plugin: "pattern_bomb", message: "time limit exceeded (300 ms)", line: 2),
        LoadFailure(folder: "binary_chunk", plugin: "binary_chunk", message: "attempt to load a binary chunk", line: 3),
        LoadFailure(folder: "os_execute", plugin: "os_execute", message: "attempt to call a nil value (field 'execute')", line: 2),
        LoadFailure(folder: "io_popen", plugin: "io_popen", message: "attempt to index a nil value (global 'io')", line: 2),
        LoadFailure(folder: "require_os", plugin: "require_os", message: "module 'os' not found in the plugin's folder", line: 2),
        LoadFailure(folder: "package_loadlib", plugin: "package_loadlib", message: "attempt to index a nil value (global 'package')", line: 2),
        LoadFailure(folder: "debug_sethook", plugin: "debug_sethook", message: "attempt to index a nil value (global 'debug')", line: 2),
        LoadFailure(folder: "string_metatable", plugin: "string_metatable", message: "attempt to index a boolean value", line: 2),
        LoadFailure(folder: "string_upper_nil", plugin: "string_upper_nil", message: "attempt to modify read-only table 'string' (field 'upper')", line: 4),
        LoadFailure(folder: "gc_finalizer", plugin: "gc_finalizer", message: "__gc metamethods are not available to plugins", line: 2),
        LoadFailure(folder: "error_table", plugin: "error_table", message: "error object is a table value", line: 2),
        LoadFailure(folder: "error_nil", plugin: "error_nil", message: "error object is nil", line: 2),
        LoadFailure(folder: "error_tostring_raises", plugin: "error_tostring_raises", message: "error object is a table value (its __tostring failed)", line: 2),
        LoadFailure(folder: "error_tostring_loops", plugin: "error_tostring_loops", message: "time limit exceeded (300 ms)", line: nil, anyLine: true),
        LoadFailure(folder: "syntax_error", plugin: "syntax_error", message: "unexpected symbol near '='", line: 3),
        LoadFailure(folder: "returns_nothing", plugin: "returns_nothing", message: "returned nothing", line: nil),
        LoadFailure(folder: "wrong_api", plugin: "wrong_api", message: "plugin targets host API 2, but this host provides API 1", line: nil),
        LoadFailure(folder: "missing_name", plugin: "missing_name", message: "the plugin table needs 'name', a non-empty string", line: nil),
        LoadFailure(folder: "error_in_register", plugin: "error_in_register", message: "attempt to index a nil value (local 'cfg')", line: 6),
    ]

    /// Plugins that load (their misbehaviour shows when their rules run, or not at all).
    static let loading = [
        "good", "loop_in_rule", "memory_in_rule", "swallow_in_rule", "pattern_in_rule", "raise_in_rule", "non_boolean_rule",
        "late_registration", "reach_globals", "duplicate_a", "duplicate_b",
    ]

    /// Rules that fail at evaluation: (rule, plugin folder, message, script line or nil).
    static let ruleFailures: [(rule: String, folder: String, message: String, line: Int?)] = [
        ("hostile_loop", "loop_in_rule", "time limit exceeded (300 ms)", 5),
        ("hostile_memory", "memory_in_rule", "memory limit exceeded (32 MiB)", nil),
        ("hostile_swallow", "swallow_in_rule", "time limit exceeded (300 ms)", nil),
        ("hostile_resume", "swallow_in_rule", "time limit exceeded (300 ms)", nil),
        ("hostile_pattern", "pattern_in_rule", "time limit exceeded (300 ms)", nil),
        ("hostile_raise", "raise_in_rule", "rule exploded", 5),
        ("returns_string", "non_boolean_rule", "rule 'returns_string' (plugin non_boolean_rule) returned a string, expected a boolean", nil),
        ("returns_nothing", "non_boolean_rule", "rule 'returns_nothing' (plugin non_boolean_rule) returned nil, expected a boolean", nil),
        ("registers_late", "late_registration", "host.rule: registration works only while register runs (plugin late_registration)", 8),
    ]

    func hostileFolder(_ name: String) -> PluginFolder {
        PluginFolder(path: PluginTestKit.hostileDir + "/" + name)
    }

    func file(_ folder: String) -> String { PluginTestKit.hostileDir + "/" + folder + "/plugin.lua" }

    /// Every folder of the corpus is covered by the tables above (a new case must say what it expects).
    func testEveryCorpusFolderHasAnExpectation() throws {
        let dir = PluginTestKit.packageRoot + "/Tests/Fixtures/hostile"
        let folders = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") }.sorted()
        let covered = Set(Self.loadFailures.map(\.folder) + Self.loading)
        XCTAssertEqual(Set(folders), covered, "corpus folders without an expectation, or expectations without a folder")
        for f in folders {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/" + f + "/plugin.lua"), "\(f)/plugin.lua")
        }
    }

    func testTheWholeCorpusInOneEngine() throws {
        let engine = try PluginEngine(limits: Self.limits)
        let all = try FileManager.default.contentsOfDirectory(atPath: PluginTestKit.packageRoot + "/Tests/Fixtures/hostile")
            .filter { !$0.hasPrefix(".") && $0 != "good" }.sorted()
        // The good plugin first (reach_globals tries to see its globals), then every hostile one.
        let folders = [hostileFolder("good")] + all.map(hostileFolder)
        let (_, seconds) = PluginTestKit.timed { engine.load(folders: folders, limits: .standard) }
        XCTAssertLessThan(seconds, 10, "loading the corpus is bounded (loops stop after 300 ms each)")
        let diagnostics = engine.diagnostics.items
        let text = PluginTestKit.diagnosticsText(engine)
        if ProcessInfo.processInfo.environment["LOOM_PRINT_DIAGNOSTICS"] != nil { print(text) }

        // Every broken plugin is reported: name, path, line, and what went wrong.
        for c in Self.loadFailures {
            let path = file(c.folder)
            let mine = diagnostics.filter { $0.message.hasPrefix("plugin \(c.plugin) (") }
            XCTAssertEqual(mine.count, 1, "\(c.folder): exactly one diagnostic naming the plugin, got:\n\(text)")
            guard let d = mine.first else { continue }
            XCTAssertEqual(d.severity, .error, c.folder)
            XCTAssertTrue(d.message.contains(c.message), "\(c.folder): '\(d.message)' should say '\(c.message)'")
            XCTAssertEqual(d.location?.file, path, "\(c.folder): the diagnostic points at its plugin.lua")
            if let line = c.line {
                XCTAssertEqual(d.location?.line, line, "\(c.folder): \(d.message)")
                XCTAssertTrue(d.message.hasPrefix("plugin \(c.plugin) (\(path):\(line)): "), "\(c.folder): \(d.message)")
            } else if c.anyLine {
                XCTAssertGreaterThan(d.location?.line ?? 0, 0, "\(c.folder): a line in the script: \(d.message)")
                XCTAssertTrue(d.message.hasPrefix("plugin \(c.plugin) (\(path):"), "\(c.folder): \(d.message)")
            } else {
                XCTAssertTrue(d.message.hasPrefix("plugin \(c.plugin) (\(path)"), "\(c.folder): \(d.message)")
            }
            let loaded = engine.plugins.first { $0.file == path }
            XCTAssertEqual(loaded?.loaded, false, "\(c.folder) is listed as not loaded")
        }

        // The duplicate registration names both plugins and points at the second registration.
        let dup = diagnostics.filter { $0.message.contains("'contested'") }
        XCTAssertEqual(dup.count, 1, text)
        XCTAssertEqual(dup.first?.message, "rule 'contested' is already registered by plugin duplicate_a (\(file("duplicate_a")):4); plugin duplicate_b cannot register it again")
        XCTAssertEqual(dup.first?.location, SourceLocation(file: file("duplicate_b"), line: 4, column: 0))
        XCTAssertEqual(engine.factory.rules["contested"]?.plugin.name, "duplicate_a", "the first registration stays")

        // Nothing else was reported: the loading plugins are clean.
        XCTAssertEqual(diagnostics.count, Self.loadFailures.count + 1, "unexpected diagnostics:\n\(text)")
        for name in Self.loading {
            XCTAssertEqual(engine.plugins.first { $0.info.name == name }?.loaded, true, "\(name) loads")
        }
        // Failed plugins registered nothing.
        for rule in ["swallowed_loop", "coroutine_survivor", "future", "anonymous", "late_rule"] {
            XCTAssertNil(engine.factory.rules[rule], "\(rule) must not be registered")
        }

        // The good plugin's rule and component are registered and still work.
        XCTAssertEqual(engine.factory.rules["good_tier"]?.plugin.name, "good")
        XCTAssertEqual(engine.factory.rules["good_tier"]?.location.file, file("good"))
        XCTAssertEqual(engine.factory.components["good_badge"]?.plugin.name, "good")
        let gold = PluginTestKit.user(["tier": .string("gold")])
        PluginTestKit.assertRule(engine, "good_tier", args: #"{"tier": "GOLD"}"#, user: gold, is: true, "after all hostile loads")
        PluginTestKit.assertRule(engine, "good_tier", args: #"{"tier": "silver"}"#, user: gold, is: false, "after all hostile loads")
        XCTAssertEqual(engine.factory.rules["good_tier"]?.evaluator.check(args: try PluginTestKit.json("[]"), file: "t.json"), ["good_tier: needs {\"tier\": NAME}"])

        // Reaching for other globals found nothing (the probe raises, naming any leak).
        PluginTestKit.assertRule(engine, "leak_probe", is: true, "no host library and no other plugin's global is reachable")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/loom-hostile-pwned"), "os.execute never ran")

        // Rules that misbehave at run time fail with the reason; the next good evaluation works.
        for c in Self.ruleFailures {
            let (r, seconds) = try PluginTestKit.timed { try PluginTestKit.evaluate(engine, c.rule, user: gold) }
            switch r {
            case .success(let v):
                XCTFail("\(c.rule) returned \(v); expected a failure '\(c.message)'")
            case .failure(let f):
                XCTAssertEqual(f.message, c.message, c.rule)
                if let line = c.line {
                    XCTAssertEqual(f.scriptLocation, "\(file(c.folder)):\(line)", c.rule)
                }
            }
            XCTAssertLessThan(seconds, 2, "\(c.rule) is stopped quickly")
            PluginTestKit.assertRule(engine, "good_tier", args: #"{"tier": "gold"}"#, user: gold, is: true, "right after \(c.rule)")
            PluginTestKit.assertRule(engine, "leak_probe", is: true, "right after \(c.rule)")
        }
        XCTAssertNil(engine.factory.rules["late_rule"], "a rule registered after loading is refused")

        // A screen: the good component resolves; one guarded by a runaway rule is hidden and reported.
        let visible = try resolve(engine, rule: #"{"good_tier": {"tier": "gold"}}"#, user: gold)
        XCTAssertEqual(visible.tree?.hidden, false)
        XCTAssertEqual(visible.tree?.view, "Badge")
        XCTAssertEqual(visible.tree?.props, .object(["text": .string("[hi]")]))
        let hidden = try resolve(engine, rule: #""hostile_loop""#, user: gold)
        XCTAssertTrue(hidden.tree == nil || hidden.tree?.hidden == true, "a component whose rule fails is not shown")
        XCTAssertTrue(hidden.diagnostics.items.contains { $0.message.contains("time limit exceeded") }, "\(hidden.diagnostics.items)")
    }

    func resolve(_ engine: PluginEngine, rule: String, user: UserProfile) throws -> Resolution {
        let text = #"{"screen": "s", "root": {"type": "good_badge", "id": "badge", "meta": {"text": "hi"}, "rule": \#(rule)}}"#
        let doc = try JSONReader.parse(Array(text.utf8), file: "screen.json")
        let (screen, d) = ScreenParser.parse(doc, defaultID: "s")
        let s = try XCTUnwrap(screen, "\(d)")
        let check = ScreenChecker.check(s, factory: engine.factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        return Resolver(factory: engine.factory, screen: s, check: check).resolve(for: user)
    }

    /// Each runaway load costs about one budget, not more: the limits are per call.
    func testEachRunawayLoadCostsOneBudget() throws {
        for name in ["loop_at_load", "loop_in_pcall", "loop_in_coroutine", "pattern_bomb", "table_bomb", "concat_bomb", "recursion"] {
            let engine = try PluginEngine(limits: LuaLimits(timeBudgetMilliseconds: 100, memoryMegabytes: 32))
            let (_, seconds) = PluginTestKit.timed { engine.load(folders: [hostileFolder("good"), hostileFolder(name)], limits: .standard) }
            XCTAssertLessThan(seconds, 1.5, "\(name) took \(seconds) s")
            XCTAssertEqual(engine.diagnostics.count, 1, "\(name): \(PluginTestKit.diagnosticsText(engine))")
            PluginTestKit.assertRule(engine, "good_tier", args: #"{"tier": "gold"}"#, user: PluginTestKit.user(["tier": .string("gold")]), is: true, "after \(name)")
        }
    }
}
