import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import XCTest

/// Every example declared beside every rule of the standard plugins (`host.rule(…, { examples
/// = … })`) is a test, run through the real path: the screen is checked as `host check` does
/// (the host's argument schema, then the rule's own `check`), then the rule evaluates for the
/// example's user. `expect` is true or false, or a substring of the message reported (the
/// host's argument message or the evaluation's error).
final class RuleExamplesTests: XCTestCase {
    func makeEngine() throws -> PluginEngine {
        let engine = try PluginEngine()
        let folders = try PluginDiscovery.folders(in: PluginTestKit.standardPluginsDir).get()
        engine.load(folders: folders, limits: .standard)
        XCTAssertFalse(engine.diagnostics.hasErrors, PluginTestKit.diagnosticsText(engine))
        return engine
    }

    /// What one example gives: the result, or the messages reported.
    enum Outcome: Equatable {
        case result(Bool)
        case messages([String])
    }

    var serial = 0

    func run(_ engine: PluginEngine, rule name: String, _ example: RuleExample, subjectType: String) throws -> Outcome {
        serial += 1
        let reg = try XCTUnwrap(engine.factory.rules[name])
        var args = example.args ?? .null
        // An empty Lua table is an empty object where the rule takes an object.
        if case .array(let a) = args, a.isEmpty, let s = reg.arguments {
            switch s.kind {
            case .object, .map: args = .object([:])
            default: break
            }
        }
        let text = #"{"screen": "s", "root": {"type": "\#(subjectType)", "id": "subject", "rule": {"\#(name)": \#(args.serialized(pretty: false))}}}"#
        // One file name per example: rule arguments are cached by their location.
        let doc = try JSONReader.parse(Array(text.utf8), file: "example-\(name)-\(serial).json")
        let (parsed, parseDiagnostics) = ScreenParser.parse(doc, defaultID: "s")
        let screen = try XCTUnwrap(parsed, "\(parseDiagnostics)")
        let check = ScreenChecker.check(screen, factory: engine.factory)
        let errors = check.diagnostics.errors.map(\.message)
        if !errors.isEmpty { return .messages(errors) }
        let ref = try XCTUnwrap(screen.root.rule?.references.first)
        let user = UserProfile(name: nil, attributes: example.user.object ?? [:])
        let ctx = ResolutionContext(user: user, screenID: "s")
        switch reg.evaluator.evaluate(args: ref.args, at: ref.location, subject: .component(screen.root), context: ctx) {
        case .success(let b): return .result(b)
        case .failure(let f): return .messages([f.message])
        }
    }

    func testEveryExampleOfEveryStandardRule() throws {
        let engine = try makeEngine()
        let subjectType = try XCTUnwrap(engine.factory.components.values.first { $0.kind == .single }?.type, "a single component type to guard")
        var ran = 0
        for name in engine.factory.rules.keys.sorted() {
            let reg = try XCTUnwrap(engine.factory.rules[name])
            XCTAssertGreaterThanOrEqual(reg.examples.count, 2, "rule '\(name)' (plugin \(reg.plugin.name)) declares at least two examples")
            let results = Set(reg.examples.compactMap { e -> Bool? in if case .result(let b) = e.expect { return b } else { return nil } })
            XCTAssertEqual(results, [true, false], "rule '\(name)' has examples that are true and examples that are false")
            for (i, example) in reg.examples.enumerated() {
                let label = "rule '\(name)' example \(i + 1) (\(reg.location))"
                let outcome = try run(engine, rule: name, example, subjectType: subjectType)
                ran += 1
                switch (example.expect, outcome) {
                case (.result(let want), .result(let got)):
                    XCTAssertEqual(got, want, label)
                case (.error(let needle), .messages(let messages)):
                    XCTAssertTrue(messages.contains { $0.contains(needle) }, "\(label): \(messages) should mention \(needle)")
                    // Argument messages are written by the host and name the rule.
                    XCTAssertTrue(messages.allSatisfy { $0.contains(name) }, "\(label): \(messages) name the rule")
                case (.result(let want), .messages(let messages)):
                    XCTFail("\(label): expected \(want), got \(messages)")
                case (.error(let needle), .result(let got)):
                    XCTFail("\(label): expected an error mentioning \(needle), got \(got)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(ran, 14, "the examples ran")
    }

    /// The runner itself can fail: a wrong expectation is caught.
    func testAWrongExpectationIsCaught() throws {
        let engine = try makeEngine()
        let subjectType = try XCTUnwrap(engine.factory.components.values.first { $0.kind == .single }?.type)
        let wrong = RuleExample(user: ["tier": "gold"], args: ["tier": "gold"], expect: .result(false))
        XCTAssertEqual(try run(engine, rule: "equals", wrong, subjectType: subjectType), .result(true))
        let bad = RuleExample(user: [:], args: ["percent": 120, "group": "g"], expect: .result(true))
        guard case .messages(let m) = try run(engine, rule: "rollout", bad, subjectType: subjectType) else { return XCTFail("accepted") }
        XCTAssertEqual(m, ["rule 'rollout': 'percent' must be a number from 0 to 100, found 120"])
    }

    // MARK: Declaring arguments in a plugin

    func loadPlugin(_ source: String) throws -> (PluginEngine, String) {
        let dir = NSTemporaryDirectory() + "loom-args-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: dir + "/p", withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try source.write(toFile: dir + "/p/plugin.lua", atomically: true, encoding: .utf8)
        let engine = try PluginEngine()
        engine.load(folders: [PluginFolder(path: dir + "/p")], limits: .standard)
        return (engine, dir + "/p/plugin.lua")
    }

    /// A malformed schema is a load error at the plugin's host.rule call.
    func testAMalformedSchemaIsALoadErrorAtTheHostRuleCall() throws {
        let (engine, file) = try loadPlugin("""
            return { name = "p", version = "1.0.0", api = 1, register = function(host)
              host.rule("r", function() return true end, {
                args = { percent = { type = "nubmer" } },
              })
            end }
            """)
        let errors = engine.diagnostics.errors
        XCTAssertEqual(errors.count, 1, PluginTestKit.diagnosticsText(engine))
        XCTAssertEqual(errors.first?.location?.file, file)
        XCTAssertEqual(errors.first?.location?.line, 2)
        XCTAssertTrue(errors.first?.message.contains("host.rule('r'): options.args.percent: unknown type 'nubmer'; did you mean 'number'?") == true, "\(errors)")
        XCTAssertNil(engine.factory.rules["r"])
    }

    /// The host checks a screen's rule arguments against the declared schema: every problem,
    /// each at its JSON position, naming the rule; the plugin's `check` runs only on arguments
    /// that fit. A rule without `args` keeps its `check` alone.
    func testTheScreenCheckWritesLocatedMessagesAndKeepsCheckForTheRest() throws {
        let (engine, _) = try loadPlugin("""
            return { name = "p", version = "1.0.0", api = 1, register = function(host)
              host.single("box", function() return { view = "Box" } end)
              host.cluster("stack", function() return { view = "Stack" } end)
              host.rule("window", function() return true end, {
                args = { lo = { type = "integer", required = true }, hi = "integer", mode = { type = "string", values = { "open", "closed" } } },
                check = function(args) if args.hi and args.hi < args.lo then return "'hi' must not be below 'lo'" end end,
              })
              host.rule("legacy", function() return true end, {
                check = function(args) if type(args) ~= "string" then return "needs a name" end end,
              })
            end }
            """)
        XCTAssertFalse(engine.diagnostics.hasErrors, PluginTestKit.diagnosticsText(engine))
        let text = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "box", "id": "a", "rule": {"window": {"hi": "9", "mod": "open"}}},
              {"type": "box", "id": "b", "rule": {"window": {"lo": 5, "hi": 2}}},
              {"type": "box", "id": "c", "rule": {"legacy": 3}},
              {"type": "box", "id": "d", "rule": {"AND": [{"window": {"lo": 1, "mode": "closed"}}, {"legacy": "x"}]}}
            ]}}
            """
        let doc = try JSONReader.parse(Array(text.utf8), file: "s.json")
        let screen = try XCTUnwrap(ScreenParser.parse(doc, defaultID: "s").0)
        let check = ScreenChecker.check(screen, factory: engine.factory)
        XCTAssertEqual(check.diagnostics.items.map(\.description), [
            "s.json:2:56: error: rule 'window': 'hi' must be an integer, found \"9\"",
            "s.json:2:61: error: rule 'window': unknown argument 'mod'; expected hi, lo, mode; did you mean 'mode'?",
            "s.json:2:49: error: rule 'window': 'lo' is required: an integer",
            "s.json:3:49: error: rule 'window': 'hi' must not be below 'lo'",
            "s.json:4:49: error: rule 'legacy': needs a name",
        ])
        XCTAssertEqual(check.invalid.count, 3, "a, b and c are hidden; d is fine")
    }
}
