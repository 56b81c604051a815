import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// With clients.json, `host eval --select visible` keeps its plans: one per screen and client
/// (and the unknown client), each running the rule program of the copy of the screen that client
/// receives. The output and the notes (an unknown client's warning names the user's own version)
/// are those of every user resolved in full, here on three clients, a fallback chain and a drop,
/// at one worker and at two sharing their answers; and few keys are resolved (the plans are used).
final class ClientPlanTests: XCTestCase {
    static let clients = """
    {"version_attribute": "app_version", "clients": [
      {"versions": ">=5.0.0 <6.0.0", "components": ["vstack", "label", "button", "list"]},
      {"versions": ">=6.0.0 <7.0.0", "components": ["vstack", "hstack", "label", "button", "list", "grid"]},
      {"versions": ">=7.0.0", "components": ["vstack", "hstack", "label", "button", "list", "grid", "carousel"]}
    ]}
    """
    static let screen = """
    {"screen": "home", "root": {"type": "vstack", "id": "root", "children": [
      {"type": "label", "id": "title", "meta": {"text": "Hi"}},
      {"type": "carousel", "id": "promos", "rule": "gold", "items": [{"id": "p1", "title": "P1"}],
       "fallback": {"type": "grid", "id": "promos_grid", "items": [{"id": "p1g", "title": "P1"}],
                    "fallback": {"type": "list", "id": "promos_list", "items": [{"id": "p1l", "title": "P1"}]}}},
      {"type": "grid", "id": "tiles", "fallback": "drop", "items": [{"id": "t1", "title": "T"}]},
      {"type": "hstack", "id": "bar", "rule": "nordic", "children": [{"type": "button", "id": "buy", "meta": {"title": "Buy"}}]}
    ]}}
    """

    func testPlansPerClientGiveWhatFullResolutionGives() throws {
        let root = try makePopulationProject(plugin: "c", lua: """
            return { name = "c", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(u) return u.tier == "gold" end)
              host.rule("nordic", function(u) return u.country == "NO" or u.country == "SE" end)
            end }
            """, screen: "home", json: Self.screen)
        try Data(Self.clients.utf8).write(to: root.appendingPathComponent("clients.json"))
        // Versions of every client, between and outside the ranges, not versions, escaped,
        // numbers, null and missing (a fixed generator).
        let versions: [String?] = [#""5.1.0""#, #""5.9.9""#, #""6.0.0""#, #""6.4.2""#, #""7.0.0""#, #""8.1""#, #""v7.2.0""#,
                                   #""4.9.9""#, #""x.y""#, #""6.0.0-beta.1""#, #""5\u002e2.0""#, "5", "null", nil]
        var state: UInt64 = 7
        func next(_ k: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(k))
        }
        let n = 1500
        var lines: [String] = []
        for i in 0..<n {
            var s = #"{"name": "u\#(i)", "tier": "\#(["gold", "free"][next(2)])", "country": "\#(["NO", "SE", "DK"][next(3)])""#
            if let v = versions[next(versions.count)] { s += #", "app_version": \#(v)"# }
            lines.append(s + "}")
        }
        let batches = stride(from: 0, to: n, by: 50).map { start in
            var block = LineBlock()
            for i in start..<start + 50 { block.append(line: i + 1, bytes: Array(lines[i].utf8), tooLong: false) }
            return UserBatch(lines: block)
        }
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = root.path
        let parser = UserParser(format: .jsonl, displayPath: "users.jsonl")
        let writer = EvalLineWriter(format: .jsonl, select: .visible)
        func open() throws -> PopulationScreens {
            let (opened, d) = PopulationScreens.open(options: o, screens: ["home"])
            return try XCTUnwrap(opened, "\(d.items)")
        }

        // Every user resolved in full, on screens of its own.
        let full = try open()
        XCTAssertNotNil(full.workspace.factory.clients)
        var expected: [UInt8] = []
        var expectedNotes = ResolutionNotes()
        for (i, l) in lines.enumerated() {
            guard case .success(let r) = parser.parse(PendingUser(line: i + 1, bytes: Array(l.utf8))) else { return XCTFail(l) }
            let res = full.resolve(0, for: r.profile)
            for d in res.diagnostics.items { expectedNotes.add(d, line: i + 1) }
            writer.line(user: r.label, screen: "home", res, into: &expected)
        }

        func check(_ chunks: [EvalChunk], _ label: String) {
            var text: [UInt8] = [], notes = ResolutionNotes()
            for c in chunks {
                XCTAssertTrue(c.failures.isEmpty, label)
                text += c.text
                notes.merge(c.notes)
            }
            XCTAssertEqual(String(decoding: text, as: UTF8.self), String(decoding: expected, as: UTF8.self), label)
            XCTAssertEqual(notes.order, expectedNotes.order, label)
            XCTAssertEqual(notes.order.map { notes.counts[$0]!.users }, expectedNotes.order.map { expectedNotes.counts[$0]!.users }, label)
            XCTAssertEqual(notes.order.map { notes.counts[$0]!.firstLine }, expectedNotes.order.map { expectedNotes.counts[$0]!.firstLine }, label)
        }

        let one = EvalWorker(screens: try open(), parser: parser, writer: writer)
        check(batches.map { one.process($0) }, "one worker")
        // A plan per client and the unknown one; at most four keys each (two rules), not a
        // resolution per user.
        XCTAssertEqual(one.keysResolved.count, 4)
        XCTAssertLessThanOrEqual(one.keysResolved.reduce(0, +), 16)
        XCTAssertGreaterThan(one.keysResolved.reduce(0, +), 4)
        // Some warnings per unknown version, each counted for its own users.
        XCTAssertGreaterThan(expectedNotes.order.filter { $0.message.hasPrefix("unknown client") }.count, 3)

        let shared = SharedAnswers()
        let pair = [EvalWorker(screens: try open(), parser: parser, writer: writer, shared: shared),
                    EvalWorker(screens: try open(), parser: parser, writer: writer, shared: shared)]
        check(batches.enumerated().map { pair[$0.offset % 2].process($0.element) }, "two workers sharing")

        // Users given as parsed profiles (users.json's path) go through the same plans.
        let profiles = EvalWorker(screens: try open(), parser: parser, writer: writer)
        check(batches.map { b in
            profiles.process(UserBatch(users: (0..<b.count).map { b.pending($0) }))
        }, "parsed profiles")
    }
}
