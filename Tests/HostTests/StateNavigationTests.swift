import Foundation
import XCTest

/// Navigation that depends on state: a Lua flow's ctx.user, flows.json `when` alternatives,
/// one stack per tab, steps accepted while hidden, deep links as entry edges.
final class StateNavigationTests: XCTestCase {
    private func top(_ r: HostResult) throws -> String? {
        let steps = try r.jsonObject()["steps"] as? [[String: Any]] ?? []
        return (steps.last?["stack"] as? [[String: Any]])?.last?["screen"] as? String
    }

    private func stack(_ r: HostResult) throws -> [String] {
        let steps = try r.jsonObject()["steps"] as? [[String: Any]] ?? []
        return (steps.last?["stack"] as? [[String: Any]] ?? []).compactMap { $0["screen"] as? String }
    }

    func testOneLuaFlowSendsGoldAndFreeToDifferentScreens() throws {
        let p = try ParamsFixtures.lua()
        let gold = try Host.run(["navigate", "home", "--project", p.path, "--user", "gold", "--steps", "premium", "--format", "json"])
        let free = try Host.run(["navigate", "home", "--project", p.path, "--user", "free", "--steps", "premium", "--format", "json"])
        assertExit(gold, 0)
        assertExit(free, 0)
        XCTAssertEqual(try top(gold), "lounge", gold.transcript)
        XCTAssertEqual(try top(free), "upgrade", free.transcript)
        // The graph, per user, asks the flow with that user.
        let gg = try Host.run(["graph", "home", "--project", p.path, "--user", "gold"])
        let fg = try Host.run(["graph", "home", "--project", p.path, "--user", "free"])
        assertContains(gg.stdout, "── premium (push) ──▶ lounge", in: gg)
        assertLacks(gg.stdout, "──▶ upgrade", in: gg)
        assertContains(fg.stdout, "── premium (push) ──▶ upgrade", in: fg)
        // Deterministic: the same graph twice.
        XCTAssertEqual(try Host.run(["graph", "home", "--project", p.path, "--user", "free"]).stdout, fg.stdout)
    }

    func testCtxUserIsReadOnly() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["navigate", "home", "--project", p.path, "--user", "gold", "--steps", "open_side"])
        assertExit(r, 1)
        assertContains(r.stderr, "flow 'main' failed", in: r, "stderr")
        assertMatches(r.stderr, "read-only|frozen|cannot (be )?(modif|assign|change)", in: r, "stderr")
    }

    func testWhenAlternativesChooseByRulePerUser() throws {
        let p = try ParamsFixtures.declarative()
        for (user, screen) in [("gold", "lounge"), ("free", "upgrade")] {
            let r = try Host.run(["navigate", "home", "--project", p.path, "--user", user, "--steps", "premium", "--format", "json"])
            assertExit(r, 0)
            XCTAssertEqual(try top(r), screen, r.transcript)
            let g = try Host.run(["graph", "home", "--project", p.path, "--user", user, "--format", "json"])
            let edges = try g.jsonObject()["edges"] as? [[String: Any]] ?? []
            let premium = edges.filter { $0["step"] as? String == "premium" }.compactMap { $0["to"] as? String }
            XCTAssertEqual(premium, [screen], g.stdout)
        }
    }

    func testAWhenNamingAnUnknownRuleFailsLocated() throws {
        let p = try ParamsFixtures.declarative()
        let flows = p.appendingPathComponent("flows.json")
        let text = try String(contentsOf: flows, encoding: .utf8).replacingOccurrences(of: #""when": "is_gold""#, with: #""when": "is_golden""#)
        try Data(text.utf8).write(to: flows)
        let r = try Host.run(["navigate", "home", "--project", p.path, "--user", "gold", "--steps", "premium"])
        assertExit(r, 1)
        assertMatches(r.stderr, #"flows\.json:\d+:\d+: step 'premium' of flow 'main': rule is_golden failed: rule 'is_golden' is not registered"#, in: r, "stderr")
        // host check reports it statically, at the rule.
        let c = try Host.run(["check", "--project", p.path])
        assertMatches(c.stderr, #"flows\.json:\d+:\d+: error: unknown rule 'is_golden' in a \"when\" of flow 'main'"#, in: c, "stderr")
    }

    func testTabsKeepOneStackPerTab() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["navigate", "home", "--project", p.path, "--user", "gold",
                              "--steps", "item:42,tab:second,tab:home", "--format", "json"])
        assertExit(r, 0)
        XCTAssertEqual(try stack(r), ["home", "item"], r.transcript)
        let steps = try r.jsonObject()["steps"] as? [[String: Any]] ?? []
        XCTAssertEqual((steps[1]["stack"] as? [[String: Any]])?.compactMap { $0["screen"] as? String }, ["second"], r.stdout)
        // The restored item screen keeps its params.
        XCTAssertEqual(((steps[2]["stack"] as? [[String: Any]])?.last?["params"]) as? [String: String], ["id": "42"], r.stdout)
    }

    func testStepsAcceptedWhileHidden() throws {
        let accepting = try ParamsFixtures.declarative(acceptsReset: true)
        let r = try Host.run(["navigate", "home", "--project", accepting.path, "--user", "gold", "--steps", "open_side,reset", "--format", "json"])
        assertExit(r, 0)
        XCTAssertEqual(try top(r), "upgrade", r.transcript)
        let strict = try ParamsFixtures.declarative(acceptsReset: false)
        let s = try Host.run(["navigate", "home", "--project", strict.path, "--user", "gold", "--steps", "open_side,reset"])
        assertExit(s, 1)
        assertContains(s.stderr, "step 'reset' is not available on screen 'side'", in: s, "stderr")
    }

    func testDeepLinksAreEntryEdgesOfTheGraph() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["graph", "home", "--project", p.path, "--user", "free"])
        assertExit(r, 0)
        assertContains(r.stdout, "deep links (entry edges):\n  app://item/{id} ──▶ item [main]   via item:{id}", in: r)
    }
}
