import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// Workers of one run share what their rules answered and what their keys resolved to
/// (`SharedAnswers`): a value one worker called a rule for is not called for again by another,
/// nor a key resolved again, which takes the answer over when its own memo or cache misses; a
/// worker does not take over the answers it logged itself. Batches are
/// handed to two workers in turn on one thread here, so the counts are exact; the output is
/// the same as one worker's.
final class SharedRuleAnswersTests: XCTestCase {
    func testWorkersTakeOverEachOthersAnswersNotTheirOwn() throws {
        let root = try makePopulationProject(plugin: "s", lua: """
            return { name = "s", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(u) return u.tier == "gold" end)
              host.rule("nordic", function(u) return u.country == "NO" or u.country == "SE" end)
            end }
            """, screen: "s", json: #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [{"type": "label", "id": "gold", "meta": {"text": "x"}, "rule": "gold"}, {"type": "label", "id": "nordic", "meta": {"text": "x"}, "rule": "nordic"}]}}"#)
        // Batches of ten. Three tiers from the first user on; two countries in the first batch
        // (the first worker's), two more from the second (the second worker's), all seven from
        // the fourth (the second worker's).
        let tiers = ["gold", "free", "silver"], countries = ["NO", "DE", "SE", "FR", "US", "IS", "DK"]
        let n = 200
        var lines: [String] = []
        for i in 0..<n {
            let c = countries[i < 10 ? i % 2 : (i < 30 ? i % 4 : i % countries.count)]
            lines.append(#"{"name": "u\#(i)", "tier": "\#(tiers[i % 3])", "country": "\#(c)"}"#)
        }
        let batches = stride(from: 0, to: n, by: 10).map { start in
            var block = LineBlock()
            for i in start..<start + 10 { block.append(line: i + 1, bytes: Array(lines[i].utf8), tooLong: false) }
            return UserBatch(lines: block)
        }

        var o = Workspace.Options()

        o.pluginHost = PluginEngine.host
        o.project = root.path
        let parser = UserParser(format: .jsonl, displayPath: "users.jsonl")
        func worker(_ shared: SharedAnswers?) throws -> EvalWorker {
            let (opened, d) = PopulationScreens.open(options: o, screens: ["s"])
            let screens = try XCTUnwrap(opened, "\(d.items)")
            return EvalWorker(screens: screens, parser: parser, writer: EvalLineWriter(format: .jsonl, select: .visible), shared: shared)
        }

        // One worker alone: the reference output and its calls.
        let one = try worker(nil)
        var expected: [UInt8] = []
        for b in batches { expected += one.process(b).text }

        // Two workers sharing, batches in turn.
        let shared = SharedAnswers()
        let pair = [try worker(shared), try worker(shared)]
        var out: [UInt8] = []
        for (k, b) in batches.enumerated() {
            let chunk = pair[k % 2].process(b)
            XCTAssertTrue(chunk.failures.isEmpty && !chunk.notes.hasErrors)
            out += chunk.text
        }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), String(decoding: expected, as: UTF8.self))

        let a = try XCTUnwrap(pair[0].memoStates.first), b = try XCTUnwrap(pair[1].memoStates.first)
        let single = try XCTUnwrap(one.memoStates.first)
        XCTAssertEqual(single.map(\.calls), [tiers.count, countries.count])
        // Between them, each value called for once: what one worker learnt, the other took over.
        XCTAssertEqual(a[0].calls + b[0].calls, tiers.count)
        XCTAssertEqual(a[1].calls + b[1].calls, countries.count)
        XCTAssertEqual(a.map(\.calls), [3, 2], "the first worker: every tier, the first two countries")
        XCTAssertEqual(b.map(\.calls), [0, 5], "the second: the five countries it met first")
        // Each took over exactly the other's answers, never its own.
        XCTAssertEqual(pair[0].takenOver, [5])
        XCTAssertEqual(pair[1].takenOver, [5])

        // Keys (the two outcomes): all four met in the first batch, the first worker's. It
        // resolved them; the second took them over at its first miss and resolved none.
        XCTAssertEqual(one.keysResolved, [4])
        XCTAssertEqual(pair[0].keysResolved, [4])
        XCTAssertEqual(pair[1].keysResolved, [0])
        XCTAssertEqual(pair[0].keysTakenOver, [0], "a worker does not take its own keys over")
        XCTAssertEqual(pair[1].keysTakenOver, [4])
    }
}
