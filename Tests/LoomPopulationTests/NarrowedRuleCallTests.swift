import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// Once a rule's memo is off (it reads what nearly every user has a value of its own for), the
/// rule is called with a user holding only what its recorded calls read (`PlanUser.narrowContext`);
/// an answer that read anything else is thrown away and the rule called with the whole user.
/// Either way the answers are the rules'.
final class NarrowedRuleCallTests: XCTestCase {
    /// Runs `users` lines through screen `g` of a project with `lua` as plugin `g`; the output
    /// lines and the worker.
    private func run(lua: String, rules: [String], users: [String]) throws -> ([String], EvalWorker) {
        let (screens, file) = try openRuleLabels(lua: lua, rules: rules, users: users)
        let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
        let worker = EvalWorker(screens: screens, parser: input.parser, writer: EvalLineWriter(format: .jsonl, select: .visible))
        var out: [UInt8] = []
        while let b = input.nextBatch() {
            let chunk = worker.process(b)
            XCTAssertTrue(chunk.failures.isEmpty && !chunk.notes.hasErrors, "\(chunk.notes.order)")
            out += chunk.text
        }
        return (String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init), worker)
    }

    private func line(_ i: Int, _ ids: [String]) -> String {
        #"{"user":"u\#(i)","screen":"g","visible":[\#((["root"] + ids).map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }

    func testTheStandardRolloutIsCalledWithTheIdAlone() throws {
        let n = 6_000
        let users = (0..<n).map { #"{"name": "u\#($0)", "id": "user-\#($0)", "tier": "gold", "age": \#($0 % 90)}"# }
        let (lines, worker) = try run(lua: "return { name = \"g\", version = \"1.0.0\", api = 1, register = function(host) end }",
                                      rules: [#"{"rollout": {"percent": 30, "group": "g"}}"#], users: users)
        // The expected answers: the same rule over whole users through `host run`'s path.
        XCTAssertEqual(lines.count, n)
        let states = try XCTUnwrap(worker.narrowStates.first)
        XCTAssertEqual(states.count, 1)
        XCTAssertEqual(states[0].narrowed, n - RuleMemo.probation)
        XCTAssertEqual(states[0].widened, 0)
        let inRollout = lines.filter { $0.contains("\"c0\"") }.count
        XCTAssertGreaterThan(inRollout, n / 5)
        XCTAssertLessThan(inRollout, n * 2 / 5)
        // The same users with the memo off from the start (every call whole) see the same.
        let whole = try run(lua: "return { name = \"g\", version = \"1.0.0\", api = 1, register = function(host) end }",
                            rules: [#"{"rollout": {"percent": 30, "group": "g"}}"#], users: users.map { $0.replacingOccurrences(of: "\"tier\"", with: "\"x\": [1], \"tier\"") }).0
        XCTAssertEqual(lines, whole)
    }

    func testACallThatReadsMoreThanItsProbationIsCalledAgainWhole() throws {
        // The first users' calls read `id` alone; from user 5,000 on the rule reads `tier` too,
        // and past 5,500 it iterates over the user: neither answer from a narrowed user is kept.
        let lua = """
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("late", function(u)
                local n = tonumber(string.sub(u.id, 4))
                if n >= 5500 then local c = 0; for _ in pairs(u) do c = c + 1 end; return c == 4 end
                if n >= 5000 then return u.tier == "gold" end
                return n % 2 == 0
              end)
            end }
            """
        let n = 6_000
        let users = (0..<n).map { #"{"name": "u\#($0)", "id": "id-\#($0)", "tier": "\#($0 % 3 == 0 ? "gold" : "free")"\#($0 % 4 == 0 ? ", \"x\": 1" : "")}"# }
        let (lines, worker) = try run(lua: lua, rules: [#""late""#], users: users)
        XCTAssertEqual(lines.count, n)
        for (i, l) in lines.enumerated() {
            let seen = i >= 5500 ? i % 4 == 0 : i >= 5000 ? i % 3 == 0 : i % 2 == 0
            XCTAssertEqual(l, line(i, seen ? ["c0"] : []))
        }
        let states = try XCTUnwrap(worker.narrowStates.first)
        XCTAssertEqual(states[0].narrowed, 5000 - RuleMemo.probation)
        XCTAssertEqual(states[0].widened, 1000)
    }
}
