import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import XCTest

/// A rule call recorded for `host eval`'s memo (`ObservableRule.evaluateObserved`) sees the user
/// through a recording view over the view's table made without the view; a plain call later in
/// the same resolution gets the view over that same table, and a recorded call after it records
/// over that view. Every call reads the same user, none can change it, and the reads are logged.
final class RecordedRuleCallTests: XCTestCase {
    func testRecordedAndPlainCallsOfOneResolutionSeeOneReadOnlyUser() throws {
        let dir = NSTemporaryDirectory() + "loom-recorded-" + String(UUID().uuidString.prefix(8))
        try FileManager.default.createDirectory(atPath: dir + "/p", withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try """
            return { name = "p", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(u) return u.tier == "gold" end)
              host.rule("adult_gold", function(u) return u.tier == "gold" and u.age >= 18 end)
              host.rule("demote", function(u) u.tier = "free"; return true end)
            end }
            """.write(toFile: dir + "/p/plugin.lua", atomically: true, encoding: .utf8)
        let engine = try PluginEngine()
        engine.load(folders: [PluginFolder(path: dir + "/p")], limits: .standard)
        XCTAssertTrue(engine.diagnostics.errors.isEmpty, PluginTestKit.diagnosticsText(engine))
        func rule(_ name: String) throws -> any ObservableRule {
            try XCTUnwrap(engine.factory.rules[name]?.evaluator as? any ObservableRule, name)
        }
        let subject = RuleSubject.component(try PluginTestKit.subject())
        let ctx = ResolutionContext(user: PluginTestKit.user(["tier": .string("gold"), "age": .int(30)], name: "u1"), screenID: "s")
        var line = 0
        func at() -> SourceLocation { line += 1; return SourceLocation(file: "s.json", line: line, column: 1) }
        func refused(_ r: Result<Bool, BuildFailure>, _ why: String) {
            guard case .failure(let f) = r else { return XCTFail("\(why): the write was not refused") }
            XCTAssertTrue(f.message.contains("attempt to modify read-only table 'node' (field 'tier')"), "\(why): \(f.message)")
        }

        // Recorded calls first: the view's table without the view.
        let first = try rule("adult_gold").evaluateObserved(args: nil, at: at(), subject: subject, context: ctx)
        XCTAssertEqual(try first.result.get(), true)
        XCTAssertEqual(first.reads, ["tier", "age"])
        let write = try rule("demote").evaluateObserved(args: nil, at: at(), subject: subject, context: ctx)
        refused(write.result, "recorded")
        XCTAssertNil(write.reads)
        // Plain calls of the same resolution: the view over the same table, unchanged.
        XCTAssertEqual(try rule("gold").evaluate(args: nil, at: at(), subject: subject, context: ctx).get(), true)
        refused(try rule("demote").evaluate(args: nil, at: at(), subject: subject, context: ctx), "plain")
        // Recorded again once the view is made: over the view.
        let again = try rule("gold").evaluateObserved(args: nil, at: at(), subject: subject, context: ctx)
        XCTAssertEqual(try again.result.get(), true)
        XCTAssertEqual(again.reads, ["tier"])

        // Another user's resolution reads its own user.
        let other = ResolutionContext(user: PluginTestKit.user(["tier": .string("free"), "age": .int(40)], name: "u2"), screenID: "s")
        let theirs = try rule("adult_gold").evaluateObserved(args: nil, at: at(), subject: subject, context: other)
        XCTAssertEqual(try theirs.result.get(), false)
        XCTAssertEqual(theirs.reads, ["tier"])
    }
}
