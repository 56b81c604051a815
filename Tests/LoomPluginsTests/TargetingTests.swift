import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

/// The standard targeting rules, loaded from Plugins/targeting through the real engine.
final class TargetingTests: XCTestCase {
    var targetingDir: String { PluginTestKit.standardPluginsDir + "/targeting" }

    func makeEngine(_ limits: LuaLimits = .default) throws -> PluginEngine {
        let engine = try PluginEngine(limits: limits)
        engine.load(folders: [PluginFolder(path: targetingDir)], limits: .standard)
        XCTAssertTrue(engine.diagnostics.isEmpty, PluginTestKit.diagnosticsText(engine))
        return engine
    }

    func jsonText(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The load-time check as `host check` runs it: the declared argument schema (messages
    /// written by the host), then the rule's own `check` on arguments that fit it.
    func check(_ engine: PluginEngine, _ rule: String, _ args: String?) throws -> [String] {
        let reg = try XCTUnwrap(engine.factory.rules[rule])
        let node = try args.map { try PluginTestKit.json($0) }
        if let schema = reg.arguments {
            let problems = ArgumentValidator.validate(node, against: schema, at: SourcePosition(line: 1, column: 1))
            if !problems.isEmpty { return problems.map(\.message) }
        }
        return reg.evaluator.check(args: node, file: "t.json")
    }

    // MARK: rollout

    /// The vectors, read with Loom's own JSON reader so that numbers stay numbers.
    private func vectors(_ name: String) throws -> [TargetingVector] {
        let path = PluginTestKit.packageRoot + "/Tests/LoomPluginsTests/Fixtures/" + name
        let doc = try SafeFile.parseJSON(atPath: path, limits: .standard)
        return try XCTUnwrap(doc.root.plain.array).map { TargetingVector(value: $0) }
    }

    /// Unleash's client-specification vectors: every one evaluates as Unleash does.
    func testRolloutMatchesTheUnleashVectors() throws {
        let engine = try makeEngine()
        let vectors = try vectors("rollout_vectors.json")
        XCTAssertEqual(vectors.count, 45)
        var enabled = 0
        for v in vectors {
            let group = try XCTUnwrap(v["group"]?.string)
            let percent = try XCTUnwrap(v["percent"]?.int)
            let expected = try XCTUnwrap(v["expected"]?.bool)
            let stickiness = v["stickiness"]?.string
            var args: [String: Any] = ["group": group, "percent": percent]
            if let stickiness { args["stickiness"] = stickiness }
            var attributes: [String: JSONValue] = [:]
            if let id = v["id"], !id.isNull { attributes[stickiness ?? "id"] = id }
            let argsText = try jsonText(args)
            XCTAssertEqual(try check(engine, "rollout", argsText), [], "\(argsText) passes the check")
            PluginTestKit.assertRule(engine, "rollout", args: argsText, user: PluginTestKit.user(attributes), is: expected, v["description"]?.string ?? "")
            if expected { enabled += 1 }
        }
        // rollout_vectors.json: 22 of the 45 vectors are enabled.
        XCTAssertEqual(enabled, 22)
    }

    /// murmur3 x86_32 (seed 0) of "group:value" and the resulting bucket `hash % 100 + 1`:
    /// the plugin's own hash module, and the rollout rule at the bucket's edge.
    func testMurmurBucketsThroughTheHashModuleAndTheRule() throws {
        let engine = try makeEngine()
        let vectors = try vectors("murmur_buckets.json")
        XCTAssertEqual(vectors.count, 33)
        let sandbox = engine.sandbox
        let state = engine.state
        for v in vectors {
            let key = try XCTUnwrap(v["key"]?.string)
            let hash = try XCTUnwrap(v["hash"]?.int)
            let bucket = try XCTUnwrap(v["bucket"]?.int)
            XCTAssertEqual(hash % 100 + 1, bucket, "fixture consistency: \(key)")
            // The hash module, required the way the plugin requires it.
            let top = state.top
            try sandbox.pushEnvironment(label: "murmur-test", folder: targetingDir)
            try sandbox.loadChunk(source: "return require('murmur3').x86_32(..., 0)", chunkName: "murmur-test.lua", envIndex: -1)
            state.push(key)
            try state.pcall(nargs: 1, nresults: 1)
            XCTAssertTrue(state.isInteger(-1), key)
            XCTAssertEqual(state.toInt(-1), hash, "murmur3('\(key)')")
            state.top = top
            // The rule: the user is in the rollout exactly when percent >= bucket (an empty
            // group or id is no rollout at all: the check refuses the one, the rule the other).
            guard let colon = key.lastIndex(of: ":") else { continue }
            let group = String(key[..<colon])
            let id = String(key[key.index(after: colon)...])
            if group.isEmpty || id.isEmpty {
                PluginTestKit.assertRule(engine, "rollout", args: try jsonText(["group": group.isEmpty ? "g" : group, "percent": 100]), user: PluginTestKit.user(["id": .string(id)]), is: !id.isEmpty, key)
                continue
            }
            let user = PluginTestKit.user(["id": .string(id)])
            PluginTestKit.assertRule(engine, "rollout", args: try jsonText(["group": group, "percent": bucket]), user: user, is: true, key)
            PluginTestKit.assertRule(engine, "rollout", args: try jsonText(["group": group, "percent": bucket - 1]), user: user, is: false, key)
        }
    }

    func testRolloutEdgesAndStickiness() throws {
        let engine = try makeEngine()
        let args = #"{"percent": 100, "group": "g"}"#
        PluginTestKit.assertRule(engine, "rollout", args: args, user: PluginTestKit.user(["id": .string("anyone")]), is: true, "100% is everyone with an id")
        PluginTestKit.assertRule(engine, "rollout", args: args, user: PluginTestKit.user([:]), is: false, "no stickiness attribute: never")
        PluginTestKit.assertRule(engine, "rollout", args: #"{"percent": 0, "group": "g"}"#, user: PluginTestKit.user(["id": .string("x")]), is: false, "0% is nobody")
        // A numeric id is hashed as Unleash does: 174 and "174" land in the same bucket.
        for percent in [10, 50] {
            let a = #"{"percent": \#(percent), "group": "Feature.flexibleRollout.10"}"#
            let s = try PluginTestKit.evaluate(engine, "rollout", args: a, user: PluginTestKit.user(["id": .string("174")])).get()
            let n = try PluginTestKit.evaluate(engine, "rollout", args: a, user: PluginTestKit.user(["id": .int(174)])).get()
            XCTAssertEqual(s, n, "percent \(percent)")
        }
        // The stickiness names the attribute hashed.
        let custom = #"{"percent": 50, "group": "Feature.flexible.rollout.custom.stickiness_50", "stickiness": "customField"}"#
        PluginTestKit.assertRule(engine, "rollout", args: custom, user: PluginTestKit.user(["customField": .string("388"), "id": .string("402")]), is: true)
        PluginTestKit.assertRule(engine, "rollout", args: custom, user: PluginTestKit.user(["customField": .string("402"), "id": .string("388")]), is: false)
    }

    // MARK: at_least / below

    func testSemanticVersionPrecedence() throws {
        let engine = try makeEngine()
        // SemVer 2.0 §11: each is lower than the next.
        let ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0", "10.0.0"]
        for i in 0..<ordered.count - 1 {
            let low = ordered[i], high = ordered[i + 1]
            let lowUser = PluginTestKit.user(["app_version": .string(low)])
            let highUser = PluginTestKit.user(["app_version": .string(high)])
            PluginTestKit.assertRule(engine, "at_least", args: #"{"app_version": "\#(high)"}"#, user: lowUser, is: false, "\(low) < \(high)")
            PluginTestKit.assertRule(engine, "below", args: #"{"app_version": "\#(high)"}"#, user: lowUser, is: true, "\(low) < \(high)")
            PluginTestKit.assertRule(engine, "at_least", args: #"{"app_version": "\#(low)"}"#, user: highUser, is: true, "\(high) >= \(low)")
            PluginTestKit.assertRule(engine, "below", args: #"{"app_version": "\#(low)"}"#, user: highUser, is: false, "\(high) >= \(low)")
        }
        let cases: [(user: JSONValue?, arg: String, atLeast: Bool, below: Bool, why: String)] = [
            (.string("5.2.0"), #""5.2.0""#, true, false, "equal"),
            (.string("v5.3.0"), #""5.3.0""#, true, false, "a leading v is accepted"),
            (.string("5.3.0"), #""v5.3.0""#, true, false, "on either side"),
            (.string("1.0.0+build.7"), #""1.0.0""#, true, false, "build metadata is ignored"),
            (.string("5.2"), #""5.2.0""#, true, false, "missing parts are zero"),
            (.string("5.2.0-beta.1"), #""5.2.0""#, false, true, "a pre-release is below its release"),
            (.int(5), "4.5", true, false, "numbers compare numerically"),
            (.double(4.5), "5", false, true, "numbers compare numerically"),
            (.string("10"), "9", true, false, "a numeric string against a number"),
            (nil, #""1.0.0""#, false, false, "a missing attribute is false, never an error"),
            (.string("banana"), #""1.0.0""#, false, false, "not a version: not comparable"),
            (.bool(true), "1", false, false, "a boolean is not comparable"),
        ]
        for c in cases {
            let user = PluginTestKit.user(c.user.map { ["app_version": $0] } ?? [:])
            PluginTestKit.assertRule(engine, "at_least", args: #"{"app_version": \#(c.arg)}"#, user: user, is: c.atLeast, c.why)
            PluginTestKit.assertRule(engine, "below", args: #"{"app_version": \#(c.arg)}"#, user: user, is: c.below, c.why)
        }
        // Several attributes: all must hold.
        let both = PluginTestKit.user(["app_version": .string("5.3.0"), "os_version": .int(17)])
        PluginTestKit.assertRule(engine, "at_least", args: #"{"app_version": "5.0.0", "os_version": 16}"#, user: both, is: true)
        PluginTestKit.assertRule(engine, "at_least", args: #"{"app_version": "5.0.0", "os_version": 18}"#, user: both, is: false)
    }

    // MARK: between

    func testBetweenUsesNow() throws {
        let engine = try makeEngine()
        let december = #"{"from": "2024-12-01T00:00:00Z", "to": "2025-01-01"}"#
        let cases: [(now: String?, args: String, expected: Bool, why: String)] = [
            ("2024-12-15T12:00:00Z", december, true, "inside"),
            ("2024-12-01T00:00:00Z", december, true, "from is inclusive"),
            ("2024-11-30T23:59:59Z", december, false, "before"),
            ("2024-12-31T23:59:59.999Z", december, true, "the last instant"),
            ("2025-01-01T00:00:00Z", december, false, "to is exclusive"),
            ("2024-12-01T00:30:00+01:00", december, false, "an offset: 2024-11-30T23:30Z"),
            ("2024-12-31T23:30:00-01:00", december, false, "an offset: 2025-01-01T00:30Z"),
            ("2024-12-01", december, true, "a date is midnight UTC"),
            ("2030-01-01T00:00:00Z", #"{"from": "2025-01-01"}"#, true, "open end"),
            ("2020-01-01T00:00:00Z", #"{"to": "2025-01-01"}"#, true, "open start"),
            ("2025-06-01T00:00:00Z", #"{"to": "2025-01-01"}"#, false, "after an open start"),
            (nil, december, false, "no time given: false"),
        ]
        for c in cases {
            let user = PluginTestKit.user(c.now.map { ["now": .string($0)] } ?? [:])
            PluginTestKit.assertRule(engine, "between", args: c.args, user: user, is: c.expected, "\(c.now ?? "no now"): \(c.why)")
        }
        // A malformed now is an error naming it, not a silent false.
        let r = try PluginTestKit.evaluate(engine, "between", args: december, user: PluginTestKit.user(["now": .string("yesterday")]))
        guard case .failure(let f) = r else { return XCTFail("expected a failure, got \(r)") }
        XCTAssertTrue(f.message.contains("between: user.now must be an ISO-8601 date-time, found \"yesterday\""), f.message)
    }

    // MARK: equals / in / not_in

    func testAttributeComparisons() throws {
        let engine = try makeEngine()
        let gold = PluginTestKit.user(["tier": .string("gold"), "id": .string("174"), "age": .int(30), "beta": .bool(true)])
        PluginTestKit.assertRule(engine, "equals", args: #"{"tier": "gold"}"#, user: gold, is: true)
        PluginTestKit.assertRule(engine, "equals", args: #"{"tier": "gold", "beta": true, "age": 30}"#, user: gold, is: true)
        PluginTestKit.assertRule(engine, "equals", args: #"{"tier": "Gold"}"#, user: gold, is: false, "case matters")
        PluginTestKit.assertRule(engine, "equals", args: #"{"id": 174}"#, user: gold, is: false, "\"174\" is not 174")
        PluginTestKit.assertRule(engine, "equals", args: #"{"country": "NO"}"#, user: gold, is: false, "missing attribute")
        PluginTestKit.assertRule(engine, "in", args: #"{"tier": ["silver", "gold"]}"#, user: gold, is: true)
        PluginTestKit.assertRule(engine, "in", args: #"{"tier": ["silver"]}"#, user: gold, is: false)
        PluginTestKit.assertRule(engine, "not_in", args: #"{"tier": ["silver"]}"#, user: gold, is: true)
        PluginTestKit.assertRule(engine, "not_in", args: #"{"tier": ["gold"]}"#, user: gold, is: false)
        PluginTestKit.assertRule(engine, "not_in", args: #"{"country": ["US"]}"#, user: gold, is: false, "missing attribute: false, as every comparison")
    }

    // MARK: check

    func testCheckMessagesForBadArguments() throws {
        let engine = try makeEngine()
        let exact: [(rule: String, args: String?, messages: [String])] = [
            ("rollout", nil, [#"needs arguments: an object with group, percent, stickiness"#]),
            ("rollout", #"{"percentage": 20, "group": "g"}"#, [
                "unknown argument 'percentage'; expected group, percent, stickiness; did you mean 'percent'?",
                "'percent' is required: a number from 0 to 100 (the share of users in the rollout)",
            ]),
            ("rollout", #"{"percent": 120, "group": ""}"#, [
                "'percent' must be a number from 0 to 100, found 120",
                #"'group' must be a non-empty string, found """#,
            ]),
            ("rollout", #"{"percent": 20}"#, ["'group' is required: a non-empty string (a name that keeps this rollout's buckets independent of others)"]),
            ("rollout", #"{"percent": 20, "group": "g", "stickiness": 5}"#, ["'stickiness' must be a non-empty string, found 5"]),
            ("at_least", #"{"app_version": true}"#, [#"'app_version' must be a number, a version string like "5.2.0" (SemVer 2.0) or a decimal number written as a string, found true"#]),
            ("between", #"{"from": "2025-01-01", "to": "2024-12-01"}"#, [#"'from' "2025-01-01" must be before 'to' "2024-12-01""#]),
            ("between", "{}", [#"needs 'from', 'to' or both, e.g. {"from": "2024-12-01T00:00:00Z", "to": "2025-01-01"}"#]),
        ]
        for c in exact {
            XCTAssertEqual(try check(engine, c.rule, c.args), c.messages, "\(c.rule) \(c.args ?? "(bare)")")
        }
        let containing: [(rule: String, args: String?, needle: String)] = [
            ("below", #"{"app_version": "05.2.0"}"#, "leading zero"),
            ("between", #"{"from": "2024-13-01"}"#, "month must be 01-12"),
            ("between", #"{"form": "2024-12-01"}"#, "did you mean 'from'?"),
            ("equals", #"{"tier": ["gold", "silver"]}"#, #"use "in" to match one of several values"#),
            ("equals", "[1, 2]", "the arguments must be a non-empty object"),
            ("in", #"{"country": "NO"}"#, "'country' must be a list of values"),
            ("not_in", nil, "needs arguments"),
            ("at_least", "{}", "needs at least one entry"),
        ]
        for c in containing {
            let messages = try check(engine, c.rule, c.args)
            XCTAssertTrue(messages.contains { $0.contains(c.needle) }, "\(c.rule) \(c.args ?? "(bare)"): \(messages) should mention \(c.needle)")
        }
        // Good arguments pass.
        let good: [(String, String)] = [
            ("rollout", #"{"percent": 20, "group": "new_home", "stickiness": "id"}"#), ("equals", #"{"tier": "gold"}"#),
            ("in", #"{"country": ["NO", "SE"]}"#), ("not_in", #"{"country": ["US"]}"#), ("at_least", #"{"app_version": "5.2.0"}"#),
            ("below", #"{"build": 300}"#), ("between", #"{"from": "2024-12-01T00:00:00Z", "to": "2025-01-01"}"#),
        ]
        for (rule, args) in good {
            XCTAssertEqual(try check(engine, rule, args), [], "\(rule) \(args)")
        }
    }

    // MARK: The plugin's own unit checks

    /// Plugins/targeting/tests/unit.lua, run inside the sandbox against the functions the
    /// plugin registered with host.rule (see the header of unit.lua).
    func testThePluginsUnitChecksPassInTheSandbox() throws {
        let engine = try makeEngine(LuaLimits(timeBudgetMilliseconds: 10_000, memoryMegabytes: 64))
        let state = engine.state
        let path = targetingDir + "/tests/unit.lua"
        let source = try String(contentsOfFile: PluginTestKit.packageRoot + "/Plugins/targeting/tests/unit.lua", encoding: .utf8)
        let top = state.top
        defer { state.top = top }
        try engine.sandbox.pushEnvironment(label: "unit", folder: targetingDir + "/tests")
        try engine.sandbox.loadChunk(source: source, chunkName: path, envIndex: -1)
        state.newTable()
        for name in ["equals", "in", "not_in", "at_least", "below", "rollout", "between"] {
            let rule = try XCTUnwrap(engine.factory.rules[name]?.evaluator as? LuaRule, name)
            state.newTable()
            state.push(rule.function)
            state.setField(-2, "evaluate")
            // Only rules with cross-field conditions keep a `check` (the host checks the shapes).
            if let check = rule.checkFunction {
                state.push(check)
                state.setField(-2, "check")
            }
            state.setField(-2, name)
        }
        try state.pcall(nargs: 1, nresults: 1)
        XCTAssertEqual(state.typeName(-1), "table")
        state.getField(-1, "passed")
        let passed = state.toInt(-1) ?? -1
        state.pop()
        state.getField(-1, "failed")
        let failed = state.toInt(-1) ?? -1
        state.pop()
        state.getField(-1, "skipped")
        let skipped = state.toInt(-1) ?? -1
        state.pop()
        var failures: [String] = []
        state.getField(-1, "failures")
        for i in 0..<state.rawLength(-1) {
            state.getIndex(-1, i + 1)
            failures.append(state.toString(-1) ?? "?")
            state.pop()
        }
        XCTAssertEqual(failed, 0, failures.joined(separator: "\n"))
        XCTAssertEqual(skipped, 0)
        XCTAssertGreaterThan(passed, 400)
    }
}

/// A JSON object from a fixture, by key.
private struct TargetingVector {
    let value: JSONValue
    subscript(_ key: String) -> JSONValue? { value.object?[key] }
}
