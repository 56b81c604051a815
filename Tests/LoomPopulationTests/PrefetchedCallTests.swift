import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// `host eval` makes the calls every user's walk starts with before the walk, from one call into
/// the engine (`VisibilityPlan.prefetch`, `FlatCallBatch`, loom_call_rules). They must be the very
/// calls the walk makes, in its order, each once: a rule under an AND's second operand or under
/// a guard is called only when the walk reaches it, and a call that raises or answers no boolean
/// ends the batch with the user failed there, as a call made by the walk would. Each rule prints
/// what it is called for; the log and the output are compared with rules called through a
/// resolution context (no flat calls, so no batch), over the same workspace.
final class PrefetchedCallTests: XCTestCase {
    private let lua = """
        local function n(u) return tonumber(tostring(u.id):match("%d+")) or 0 end
        local function rule(name, answer)
          return function(u)
            print(name .. " " .. tostring(u.id))
            return answer(n(u))
          end
        end
        return { name = "g", version = "1.0.0", api = 1, register = function(host)
          host.rule("a", rule("a", function(i) return i % 2 == 0 end))
          host.rule("boom", rule("boom", function(i)
            if i % 5 == 0 then error("boom for " .. i) end
            if i % 7 == 0 then return "yes" end
            return i % 3 == 0
          end))
          host.rule("b", rule("b", function(i) return i % 4 == 1 end))
          host.rule("gate", rule("gate", function(i) return i % 3 ~= 0 end))
          host.rule("second", rule("second", function(i) return i % 2 == 1 end))
          host.rule("outer", rule("outer", function(i) return i % 6 ~= 2 end))
          host.rule("inner", rule("inner", function(i) return i % 4 ~= 3 end))
          host.rule("last", rule("last", function(i) return i % 9 < 5 end))
        end }
        """

    /// The batch is `a`, `boom`, `b` (under a NOT) and `gate` (an AND's first operand, the last
    /// call every walk makes in order); `second`, `outer`, `inner` and `last` are the walk's.
    private let screen = """
        {"screen": "g", "root": {"type": "stack", "id": "root", "children": [
          {"type": "label", "id": "c0", "meta": {"text": "x"}, "rule": "a"},
          {"type": "label", "id": "c1", "meta": {"text": "x"}, "rule": "boom"},
          {"type": "label", "id": "c2", "meta": {"text": "x"}, "rule": {"NOT": "b"}},
          {"type": "label", "id": "c3", "meta": {"text": "x"}, "rule": {"AND": ["gate", "second"]}},
          {"type": "stack", "id": "c4", "rule": "outer", "children": [
            {"type": "label", "id": "c5", "meta": {"text": "x"}, "rule": "inner"}]},
          {"type": "label", "id": "c6", "meta": {"text": "x"}, "rule": "last"}]}}
        """

    /// Every step one rule (`b` under a NOT, `a` twice), none guarding another: every rule is
    /// called before the walk, and the key is made from the batch's answers without a walk
    /// (`VisibilityPlan.key`), except for the users whose `boom` fails.
    private let flatScreen = """
        {"screen": "g", "root": {"type": "stack", "id": "root", "children": [
          {"type": "label", "id": "c0", "meta": {"text": "x"}, "rule": "a"},
          {"type": "label", "id": "c1", "meta": {"text": "x"}, "rule": {"NOT": "b"}},
          {"type": "label", "id": "c2", "meta": {"text": "x"}, "rule": "boom"},
          {"type": "label", "id": "c3", "meta": {"text": "x"}, "rule": {"NOT": {"NOT": "last"}}},
          {"type": "label", "id": "c4", "meta": {"text": "x"}, "rule": "a"},
          {"type": "stack", "id": "c5", "children": [
            {"type": "label", "id": "c6", "meta": {"text": "x"}, "rule": "gate"}]}]}}
        """

    func testKeysMadeWithoutAWalkAreTheWalksKeys() throws {
        let users = 420
        let (batched, walked, failing) = try batchedAndWalked(users: users, json: flatScreen)
        XCTAssertEqual(batched.prefetched.failures, failing)
        XCTAssertEqual(batched.keysWithoutWalk, users - failing)
        XCTAssertEqual(walked.keysWithoutWalk, 0)
        // The guarded screen of the other tests is walked.
        XCTAssertEqual(try run(memo: false, flat: true, users: 40).keysWithoutWalk, 0)
    }

    /// What a run of `run` gives: the output lines, what the rules printed, the failures and
    /// notes, the calls made before the walk and how many failed, the keys made without a walk.
    private typealias Run = (out: [String], log: [String], failures: [String], prefetched: (calls: Int, failures: Int), keysWithoutWalk: Int)

    private func run(memo: Bool, flat: Bool, users: Int, json: String? = nil) throws -> Run {
        let root = try makePopulationProject(plugin: "g", lua: lua, screen: "g", json: json ?? screen)
        let file = root.appendingPathComponent("users.jsonl").path
        try Data((0..<users).map { #"{"name": "u\#($0)", "id": "id-\#($0)"}"# + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = root.path
        let (opened, d) = PopulationScreens.open(options: o, screens: ["g"])
        let screens = try XCTUnwrap(opened, "\(d.items)")
        let engine = try XCTUnwrap(screens.workspace.pluginHost as? PluginEngine)
        engine.sandbox.logCapBytes = 64 << 20
        let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
        let worker = EvalWorker(screens: screens, parser: input.parser, writer: EvalLineWriter(format: .jsonl, select: .visible), memo: memo, flat: flat)
        var out: [UInt8] = [], failures: [String] = []
        while let b = input.nextBatch() {
            let chunk = worker.process(b)
            out += chunk.text
            // Each project's own path left out: the two runs are two projects.
            failures += chunk.failures.map { "\($0.diagnostic)".replacingOccurrences(of: root.path, with: "ROOT") }
            failures += chunk.notes.order.map { "\($0)".replacingOccurrences(of: root.path, with: "ROOT") }
        }
        let prefetched = worker.prefetchStates.reduce((calls: 0, failures: 0)) { ($0.calls + $1.calls, $0.failures + $1.failures) }
        return (String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init), engine.log.map { $0.1 }, failures, prefetched,
                worker.keysWithoutWalk.reduce(0, +))
    }

    /// The users through one worker with calls batched (flat views, no memo), and again with
    /// calls made through a resolution context: each user's output line, the failures and what
    /// the rules printed, in order, are the same either way. Also how many users fail (`boom`
    /// raises or answers a string for them).
    private func batchedAndWalked(users: Int, json: String? = nil)
        throws -> (batched: Run, walked: Run, failing: Int)
    {
        let batched = try run(memo: false, flat: true, users: users, json: json)
        let walked = try run(memo: false, flat: false, users: users, json: json)
        XCTAssertEqual(batched.out.count, users)
        XCTAssertEqual(batched.out, walked.out)
        XCTAssertTrue(batched.failures == walked.failures, "\(batched.failures.count) vs \(walked.failures.count) failures")
        XCTAssertTrue(batched.log == walked.log, "the logs differ: \(batched.log.count) vs \(walked.log.count) lines")
        return (batched, walked, (0..<users).filter { $0 % 5 == 0 || $0 % 7 == 0 }.count)
    }

    func testTheCallsMadeBeforeTheWalkAreTheWalksOwnInItsOrder() throws {
        let users = 420
        let (batched, walked, failing) = try batchedAndWalked(users: users)
        // Users whose `boom` raised or answered a string fail there: two calls made before the
        // walk (`a`, `boom`), one failed; every other user's batch is `a`, `boom`, `b`, `gate`.
        XCTAssertEqual(batched.prefetched.failures, failing)
        XCTAssertEqual(batched.prefetched.calls, 4 * users - 2 * failing)
        XCTAssertEqual(walked.prefetched.calls, 0)
        // The failures are reported, each at its user's line.
        XCTAssertTrue(batched.failures.contains { $0.contains("boom for 5") }, "\(batched.failures.prefix(3))")
        // `second`, `outer`, `inner` and `last` were called only as the walk reached them.
        // (User 1: `gate` true, `outer` true; user 3: `gate` false; user 2: `outer` false.)
        XCTAssertTrue(batched.log.contains("second id-1") && batched.log.contains("inner id-1"))
        XCTAssertFalse(batched.log.contains("second id-3"))
        XCTAssertFalse(batched.log.contains("inner id-2"))
    }

    /// With the memo on the same users see the same, whichever calls the memo answers.
    func testWithTheMemoOnTheUsersSeeTheSame() throws {
        let users = 420
        let memo = try run(memo: true, flat: true, users: users)
        let walked = try run(memo: false, flat: false, users: users)
        XCTAssertEqual(memo.out, walked.out)
    }
}
