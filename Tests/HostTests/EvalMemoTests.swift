import Foundation
import XCTest

/// `host eval --select visible` reuses a Lua rule's answer for users who agree on what it read
/// (RuleMemo, docs/populations.md). Every case compares with `LOOM_EVAL_NO_MEMO=1` (each rule
/// called for every user) and with `LOOM_EVAL_NO_PLAN=1` (full resolutions).
final class EvalMemoTests: XCTestCase {
    func project() throws -> URL {
        let dir = try Host.temporaryFolder("eval-memo")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("plugins/m"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: dir.appendingPathComponent("loom.json"))
        try Data(#"{"gold": {"tier": "gold"}}"#.utf8).write(to: dir.appendingPathComponent("users.json"))
        let plugin = """
        return { name = "m", version = "1.0.0", api = 1, register = function(host)
          -- which attribute is read next depends on what was read
          host.rule("branchy", function(u)
            if u.tier == "gold" then return (u.score or 0) > 5 end
            return u.country == "NO"
          end)
          -- reads the whole user: never reused
          host.rule("counts", function(u)
            local n = 0
            for _ in pairs(u) do n = n + 1 end
            return n % 2 == 0
          end)
          -- a nested value: reused by the whole value
          host.rule("oslo", function(u) return u.address ~= nil and u.address.city == "Oslo" end)
          -- the device context beside the user
          host.rule("gold_pad", function(u) return u.tier == "gold" and u.device ~= nil and u.device.idiom == "pad" end)
          -- logs: called for every user, so every line is logged
          host.rule("chatty", function(u) print("tier " .. tostring(u.tier)); return true end)
          -- logs through the host table: also called for every user
          host.rule("chatty_host", function(u) host.log("host tier", tostring(u.tier)); return u.tier ~= "free" end)
          -- arguments: one answer tree per reference
          host.rule("score_at_least", function(u, args) return (u.score or 0) >= args.min end)
          host.rule("named", function(u) return u.profile == "u3" end)
        end }
        """
        try Data(plugin.utf8).write(to: dir.appendingPathComponent("plugins/m/plugin.lua"))
        let rules = ["branchy", "counts", "oslo", "gold_pad", "chatty", "chatty_host", "named"]
        var children = rules.map { #"{"type": "label", "id": "\#($0)", "meta": {"text": "x"}, "rule": "\#($0)"}"# }
        children.append(#"{"type": "label", "id": "min3", "meta": {"text": "x"}, "rule": {"score_at_least": {"min": 3}}}"#)
        children.append(#"{"type": "label", "id": "min7", "meta": {"text": "x"}, "rule": {"AND": ["branchy", {"score_at_least": {"min": 7}}]}}"#)
        let screen = #"{"screen": "m", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ","))]}}"#
        try Data(screen.utf8).write(to: dir.appendingPathComponent("screens/m.json"))
        var lines: [String] = []
        var rng: UInt64 = 7
        func next(_ m: Int) -> Int { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Int((rng >> 33) % UInt64(m)) }
        for i in 0..<600 {
            var u: [String] = [#""name": "u\#(i)""#, #""tier": "\#(["gold", "free", "silver"][next(3)])""#]
            if next(3) > 0 { u.append(#""score": \#(next(10))"#) }
            if next(2) > 0 { u.append(#""country": "\#(["NO", "SE"][next(2)])""#) }
            if next(4) == 0 { u.append(#""address": {"city": "\#(["Oslo", "Bergen"][next(2)])"}"#) }
            if next(5) == 0 { u.append(#""extra": \#(next(3))"#) }
            lines.append("{" + u.joined(separator: ", ") + "}")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("users.jsonl"))
        return dir
    }

    func testReusedAnswersEqualCallingEveryRule() throws {
        let dir = try project()
        for device in [[], ["--device", "ipad"], ["--device", "iphone-15"]] {
            // --verbose: what plugins log goes to stderr (compared below).
            let args = ["eval", "m", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--jobs", "1", "--verbose"] + device
            let memo = try Host.run(args)
            let calls = try Host.run(args, environment: ["LOOM_EVAL_NO_MEMO": "1"])
            let full = try Host.run(args, environment: ["LOOM_EVAL_NO_PLAN": "1"])
            // Every rule called through a resolution context rather than a view made from the line.
            let contexts = try Host.run(args, environment: ["LOOM_EVAL_NO_FLAT": "1", "LOOM_EVAL_NO_MEMO": "1"])
            XCTAssertTrue(calls.stdoutData == contexts.stdoutData, "views made from the line differ from contexts' (\(device))")
            XCTAssertEqual(calls.stderr, contexts.stderr, "the chatty rules see the same user either way (\(device))")
            assertExit(memo, 0)
            XCTAssertEqual(memo.stdoutLines.count, 601)
            XCTAssertTrue(memo.stdoutData == calls.stdoutData, "reused answers differ from calling every rule (\(device))")
            XCTAssertTrue(memo.stdoutData == full.stdoutData, "the plan differs from full resolutions (\(device))")
            XCTAssertEqual(memo.stderr, calls.stderr, "the chatty rules log for every user either way")
            XCTAssertEqual(memo.stderr, full.stderr, "each user's rules log once, as when every user is resolved")
            XCTAssertTrue(memo.stderr.contains("[m] tier gold") && memo.stderr.contains(#"[m] host tier\tsilver"#), memo.stderr)
            let two = try Host.run(args + ["--jobs", "2"])
            XCTAssertTrue(memo.stdoutData == two.stdoutData, "--jobs 2 differs (\(device))")
        }
    }

    /// A rule combining the user and the device: on an iPad only gold users see it (the plan
    /// evaluates rules with the device context, as the resolver does).
    func testDeviceAttributesReachThePlan() throws {
        let dir = try project()
        let r = try Host.run(["eval", "m", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--device", "ipad"])
        assertExit(r, 0)
        let input = try String(contentsOf: dir.appendingPathComponent("users.jsonl"), encoding: .utf8).split(separator: "\n")
        for (line, out) in zip(input, r.stdoutLines) {
            let gold = line.contains(#""tier": "gold""#)
            XCTAssertEqual(out.contains(#""gold_pad""#), gold, "\(line) → \(out)")
        }
    }
}

extension EvalMemoTests {
    /// A rule that writes to its user fails the same way whether or not it is observed.
    func testAWritingRuleFailsAlike() throws {
        let dir = try project()
        let plugin = dir.appendingPathComponent("plugins/m/plugin.lua")
        var text = try String(contentsOf: plugin, encoding: .utf8)
        text = text.replacingOccurrences(of: "host.rule(\"named\", function(u) return u.profile == \"u3\" end)",
                                         with: "host.rule(\"named\", function(u) if u.tier == \"free\" then u.tier = \"gold\" end; return true end)")
        try Data(text.utf8).write(to: plugin)
        let args = ["eval", "m", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--jobs", "1"]
        let memo = try Host.run(args)
        let calls = try Host.run(args, environment: ["LOOM_EVAL_NO_MEMO": "1"])
        XCTAssertEqual(memo.status, 1, memo.transcript)
        XCTAssertTrue(memo.stderr.contains("attempt to modify read-only table"), memo.stderr)
        XCTAssertEqual(memo.stderr, calls.stderr)
        XCTAssertTrue(memo.stdoutData == calls.stdoutData)
    }
}
