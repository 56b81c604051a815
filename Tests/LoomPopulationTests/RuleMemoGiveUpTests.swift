import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// A rule's memo (`RuleMemo`) that does not pay is turned off: a rule reading an attribute
/// nearly every user has a value of its own for (an id) is called for every user once the memo
/// has learnt `RuleMemo.probation` calls and answered fewer than one user per
/// `RuleMemo.minHitsPer` of them; a rule reading a few values keeps its memo. The answers are
/// the rules' either way.
final class RuleMemoGiveUpTests: XCTestCase {
    func testAMemoThatDoesNotPayIsTurnedOffAndAnswersStayRight() throws {
        let root = try makePopulationProject(plugin: "g", lua: """
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("even_id", function(u) return tonumber(string.sub(u.id, 4)) % 2 == 0 end)
              host.rule("gold", function(u) return u.tier == "gold" end)
            end }
            """, screen: "g", json: #"{"screen": "g", "root": {"type": "stack", "id": "root", "children": [{"type": "label", "id": "even", "meta": {"text": "x"}, "rule": "even_id"}, {"type": "label", "id": "gold", "meta": {"text": "x"}, "rule": "gold"}]}}"#)
        let n = 12_000
        var text = ""
        for i in 0..<n { text += #"{"name": "u\#(i)", "id": "id-\#(i * 7919 % 1_000_003)", "tier": "\#(["gold", "free", "silver"][i % 3])"}"# + "\n" }
        let file = root.appendingPathComponent("users.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))

        var o = Workspace.Options()

        o.pluginHost = PluginEngine.host
        o.project = root.path
        let (opened, d) = PopulationScreens.open(options: o, screens: ["g"])
        let screens = try XCTUnwrap(opened, "\(d.items)")
        let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
        let worker = EvalWorker(screens: screens, parser: input.parser, writer: EvalLineWriter(format: .jsonl, select: .visible))
        var out: [UInt8] = []
        while let b = input.nextBatch() {
            let chunk = worker.process(b)
            XCTAssertTrue(chunk.failures.isEmpty && !chunk.notes.hasErrors)
            out += chunk.text
        }
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, n)
        for (i, line) in lines.enumerated() {
            let even = (i * 7919 % 1_000_003) % 2 == 0, gold = i % 3 == 0
            let ids = ["root"] + (even ? ["even"] : []) + (gold ? ["gold"] : [])
            XCTAssertEqual(String(line), #"{"user":"u\#(i)","screen":"g","visible":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        }
        let states = try XCTUnwrap(worker.memoStates.first)
        XCTAssertEqual(states.count, 2)
        // The id rule: every call a new value, no user answered; off after its probation.
        XCTAssertFalse(states[0].enabled)
        XCTAssertEqual(states[0].calls, RuleMemo.probation)
        XCTAssertEqual(states[0].hits, 0)
        // The tier rule: three calls, every other user answered.
        XCTAssertTrue(states[1].enabled)
        XCTAssertEqual(states[1].calls, 3)
        XCTAssertGreaterThan(states[1].hits, n / 2)
    }
}
