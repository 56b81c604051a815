import Foundation
import LoomCore
@testable import LoomPlugins
@testable import LoomPopulation
import XCTest

/// `host eval`'s plain views (loom_plain_view.c): rules that only read named fields of the user
/// get one plain table per plugin, set again for each user, where other rules get a frozen view.
/// Run both ways over the same users (`PluginEngine.plainViews` on, then off), everything the
/// plain rules read is logged and compared, with the output.
final class PlainViewTests: XCTestCase {
    private let lua = """
        local function d(x)
          if type(x) == "table" then return "table" end
          return type(x) .. ":" .. tostring(x) .. ":" .. tostring(math.type(x))
        end
        return { name = "g", version = "1.0.0", api = 1, register = function(host)
          host.rule("plain_all", function(u)
            print("plain " .. d(u.tier) .. " " .. d(u.age) .. " " .. d(u.score) .. " " .. d(u.beta) .. " " .. d(u.profile)
              .. " " .. d(u.name) .. " " .. d(u.note) .. " " .. d(u.gone) .. " " .. d(u.nested) .. " " .. d(u.a) .. " " .. d(u["é"])
              .. " " .. d(u.now) .. " " .. d(u.locale))
            return u.tier == "gold"
          end)
          host.rule("plain_age", function(u) return math.type(u.age) == "integer" and u.age > 30 end)
          -- Not plain (the user passed on): its view is the frozen one, beside the plain one.
          host.rule("frozen", function(u)
            local n = 0
            for _ in pairs(u) do n = n + 1 end
            print("frozen " .. n .. " " .. d(u.tier))
            return n > 2
          end)
        end }
        """

    /// Users whose values change kind, repeat, go missing, are null, long (past the 40 bytes a
    /// plain view compares), nested (a frozen view then for every rule), escaped
    /// (the usual path).
    private var users: [String] {
        let long = String(repeating: "x", count: 50)
        return (0..<600).map { i in
            switch i % 12 {
            case 0: return #"{"name": "u\#(i)", "tier": "gold", "age": \#(i), "beta": true}"#
            case 1: return #"{"name": "u\#(i)", "tier": "gold", "age": \#(i), "beta": true}"#
            case 2: return #"{"tier": \#(i), "age": "old", "score": 0.5, "beta": null}"#
            case 3: return #"{"tier": 1.5, "age": -0, "score": 1, "profile": "p\#(i)", "name": "u\#(i)"}"#
            case 4: return #"{"tier": "\#(long)", "note": "\#(long)", "age": 12345678901234567890}"#
            case 5: return #"{"tier": "\#(long)", "note": "\#(long)y", "age": 123456789012345678}"#
            case 6: return #"{"a": 1, "tier": "gold", "name": "u\#(i)"}"#
            case 7: return #"{"é": "ü", "a": 2, "name": "u\#(i)"}"#
            case 8: return #"{"tier": false, "a": 3}"#
            case 9: return #"{"name": "u\#(i)", "nested": {"k": 1}, "tier": "gold", "age": 40}"#
            case 10: return #"{"name": "u\#(i)", "note": "a\"b", "tier": "silver"}"#
            default: return #"{"name": "u\#(i)", "now": "2020-01-01T00:00:00Z", "locale": "fr", "gone": null}"#
            }
        }
    }

    private func run(plain: Bool, now: String? = nil) throws -> (lines: [String], log: [String], engine: PluginEngine) {
        let (screens, file) = try openRuleLabels(lua: lua, rules: [#""plain_all""#, #""frozen""#, #""plain_age""#, #""plain_all""#], users: users)
        let engine = try XCTUnwrap(screens.workspace.pluginHost as? PluginEngine)
        engine.plainViews = plain
        engine.sandbox.logCapBytes = 64 << 20
        var parser = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get().parser
        parser.now = now
        let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
        let worker = EvalWorker(screens: screens, parser: parser, writer: EvalLineWriter(format: .jsonl, select: .visible), memo: false, flat: true)
        var lines: [String] = []
        while let b = input.nextBatch() {
            let chunk = worker.process(b)
            XCTAssertTrue(chunk.failures.isEmpty && !chunk.notes.hasErrors, "\(chunk.notes.order)")
            lines += String(decoding: chunk.text, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return (lines, engine.log.map { "\($0.0) \($0.1)" }, engine)
    }

    func testPlainRulesReadTheSameUserAsFromAFrozenView() throws {
        for now in [nil, "2030-05-05T10:00:00Z"] {
            let plain = try run(plain: true, now: now), frozen = try run(plain: false, now: now)
            XCTAssertEqual(plain.lines.count, 600)
            XCTAssertEqual(plain.lines, frozen.lines)
            XCTAssertEqual(plain.log, frozen.log)
            // The plain view was made, for the keys the plugin's plain rules read, and used.
            let views = plain.engine.flatViews.plain
            XCTAssertEqual(views.count, 1)
            XCTAssertEqual(Set(views.first?.keys ?? []),
                           ["tier", "age", "score", "beta", "profile", "name", "note", "gone", "nested", "a", "é", "now", "locale"])
            XCTAssertGreaterThanOrEqual(views.first?.view ?? -1, 0)
            XCTAssertTrue(frozen.engine.flatViews.plain.allSatisfy { $0.view < 0 })
            // What the users hold reached the rules (a sample of each kind).
            for seen in ["plain string:gold:nil number:0:integer", "number:1.5:float", "number:2:integer string:ü:nil",
                         "number:3:integer nil:nil:nil", "plain boolean:false:nil", "table", "frozen"] {
                XCTAssertTrue(plain.log.contains { $0.contains(seen) }, seen)
            }
        }
    }
}
