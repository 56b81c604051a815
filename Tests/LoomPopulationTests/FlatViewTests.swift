import Foundation
import FuzzTargets
import LoomCore
import LoomPlugins
import LoomStyles
import LoomWorkspace
@testable import LoomPopulation
import XCTest

/// `host eval` calls Lua rules with a user view made straight from the JSON line's members
/// (`PlanUser.flatView`, `FlatViewRule`) instead of a profile and a resolution context: the same
/// view either way. Both ways run here over the same workspace (one Lua state, so `pairs` walks
/// tables made the same way in the same order), and everything a rule can observe of the user is
/// logged and compared: each member in `pairs` order with its Lua type and value, the length,
/// `tostring`'s form, a write's error, `profile`, `now` and `locale`.
final class FlatViewTests: XCTestCase {
    /// `describe` is the fuzz target's (`FuzzTargets.describeUserLua`).
    private let lua = FuzzTargets.describeUserLua + """
        return { name = "g", version = "1.0.0", api = 1, register = function(host)
          host.rule("see", function(u, args, node)
            print(describe(u) .. " node:" .. node.id .. " args:" .. tostring(args and args.k))
            return u.tier == "gold"
          end)
          host.rule("seen_again", function(u)
            print("again " .. describe(u))
            return (u.age or 0) > 30
          end)
          local function h(x)
            local s, n = tostring(x), 0
            for i = 1, #s do n = n + s:byte(i) * i end
            return n
          end
          host.rule("sticky_named", function(u)
            return (h(u.id) + h(u.profile) + h(u.now) + h(u.locale) + h(u.name)) % 2 == 0
          end)
          host.rule("sticky", function(u)
            local id = tostring(u.id)
            return (#id + (u.age or 0)) % 3 == 0
          end)
        end }
        """

    /// 6,000 users (past `RuleMemo.probation`, so rules reading the id are narrowed): names or none, a `profile` attribute, nulls, doubles, negative and large
    /// integers, booleans, keys in other orders, `now` and `locale` of their own, and lines the
    /// flat reader declines (an escape, a nested value), which take the usual path either way.
    private var users: [String] {
        var u: [String] = []
        for i in 0..<6_000 {
            switch i % 10 {
            case 0: u.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold", "age": \#(i % 90), "beta": true}"#)
            case 1: u.append(#"{"id": "id-\#(i)", "tier": "free", "age": -\#(i), "score": 0.25}"#)
            case 2: u.append(#"{"tier": "gold", "name": "u\#(i)", "profile": "p\#(i)", "id": "id-\#(i)", "gone": null}"#)
            case 3: u.append(#"{"name": "u\#(i)", "age": 123456789012345678, "id": "id-\#(i)", "now": "2020-01-01T00:00:00Z", "locale": "fr"}"#)
            case 4: u.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "x": null, "y": null, "tier": "gold", "ratio": -1.5e-3, "big": 12345678901234567890}"#)
            case 5: u.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold", "note": "a\"b"}"#)
            case 6: u.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "nested": {"a": 1}, "age": 40}"#)
            case 7: u.append(#"{"name": "u\#(i)"}"#)
            case 8: u.append(#"{"age": 31, "tier": "silver", "id": "id-\#(i)", "name": "u\#(i)", "beta": false, "zero": 0, "neg": -0}"#)
            default: u.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold", "age": 31, "profile": null}"#)
            }
        }
        return u
    }

    /// The output lines and the log of each way (`flat` on, then off) over one workspace.
    private func bothWays(now: String? = nil, locale: String? = nil, memo: Bool, device: DeviceContext? = nil,
                          users given: [String]? = nil) throws -> (flat: ([String], [String], Int), context: ([String], [String], Int)) {
        let rules = [#""see""#, #"{"see": {"k": 7}}"#, #""seen_again""#, #""sticky""#, #""sticky_named""#, #"{"rollout": {"percent": 40, "group": "g"}}"#]
        let (screens, file) = try openRuleLabels(lua: lua, rules: rules, users: given ?? users, device: device)
        let engine = try XCTUnwrap(screens.workspace.pluginHost as? PluginEngine)
        engine.sandbox.logCapBytes = 64 << 20
        func run(flat: Bool) throws -> ([String], [String], Int) {
            var parser = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get().parser
            parser.now = now
            parser.locale = locale
            let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
            let worker = EvalWorker(screens: screens, parser: parser, writer: EvalLineWriter(format: .jsonl, select: .visible), memo: memo, flat: flat)
            let logged = engine.log.count
            var out: [UInt8] = []
            while let b = input.nextBatch() {
                let chunk = worker.process(b)
                XCTAssertTrue(chunk.failures.isEmpty && !chunk.notes.hasErrors, "\(chunk.notes.order)")
                out += chunk.text
            }
            let narrowed = worker.narrowStates.flatMap { $0 }.reduce(0) { $0 + $1.narrowed }
            return (String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init), engine.log[logged...].map { "\($0.0) \($0.1)" }, narrowed)
        }
        return (try run(flat: true), try run(flat: false))
    }

    func testARuleSeesTheSameUserEitherWay() throws {
        for memo in [false, true] {
            let (flat, context) = try bothWays(memo: memo)
            XCTAssertEqual(flat.0.count, 6_000)
            // With the memo, `sticky` and the rollout read the id, which every user has of their
            // own: once their memos are off they are called with narrowed users. (Through a
            // context they are not: `see` made the user's profile first, and a narrowed context is
            // made from the line alone.)
            if memo { XCTAssertGreaterThan(flat.2, 2_000) } else { XCTAssertEqual(flat.2, 0) }
            XCTAssertEqual(flat.0, context.0, "memo \(memo)")
            XCTAssertEqual(flat.1, context.1, "memo \(memo)")
            // Every rule was called, and saw the members (a line with a profile of its own too).
            XCTAssertTrue(flat.1.contains { $0.contains("profile:p2 ") && $0.contains("gone") == false && $0.contains("tier=string:gold") })
            XCTAssertTrue(flat.1.contains { $0.contains("ratio=float:-0.0015") })
            XCTAssertTrue(flat.1.contains { $0.contains("write:false:attempt to modify read-only table 'node' (field 'tier')") })
        }
    }

    /// A device context (chosen, as `--device` chooses one) puts its attributes beside the
    /// user's, nested ones (`device`, `traits`) and dotted ones (`device.idiom`).
    func testTheDeviceContextIsBesideTheUserEitherWay() throws {
        for memo in [false, true] {
            let (flat, context) = try bothWays(memo: memo, device: .standard)
            XCTAssertEqual(flat.0, context.0)
            XCTAssertEqual(flat.1, context.1)
            XCTAssertTrue(flat.1.contains { $0.contains("device.idiom:phone d:phone") }, "\(flat.1.prefix(2))")
            XCTAssertTrue(flat.1.contains { $0.contains("device.idiom=string:phone") })
            if memo { XCTAssertGreaterThan(flat.2, 2_000) }
        }
    }

    func testNowAndLocaleFromTheCommandLineAreOverTheUsersOwn() throws {
        for memo in [false, true] {
            let (flat, context) = try bothWays(now: "2030-05-05T10:00:00Z", locale: "nb", memo: memo)
            XCTAssertEqual(flat.0, context.0)
            XCTAssertEqual(flat.1, context.1)
            XCTAssertTrue(flat.1.contains { $0.contains("now:2030-05-05T10:00:00Z locale:nb") })
            XCTAssertFalse(flat.1.contains { $0.contains("now:2020-01-01") })
        }
    }

    /// More sets of keys than a state keeps tables for (64): the first are kept and set again,
    /// the rest made anew each time; keys in another order, a null member more (the same
    /// non-null keys in a table of another size) and members missing are sets of their own. The
    /// same user either way. Also with fewer sets, repeating: 20 (more than the sets of keys C
    /// checks a line against before looking its table up, 16: `loom_reuse_records`) and 12 (every
    /// one of them checked first).
    func testUsersOfManySetsOfKeysAreTheSameUserEitherWay() throws {
        for sets in [150, 20, 6] { try usersOfSetsOfKeys(sets) }
    }

    private func usersOfSetsOfKeys(_ sets: Int) throws {
        var users: [String] = []
        for i in 0..<3_000 {
            let k = i % sets
            switch i % 4 {
            case 0: users.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold", "k\#(k)": \#(i), "age": \#(i % 70)}"#)
            case 1: users.append(#"{"k\#(k)": "v\#(i)", "tier": "free", "id": "id-\#(i)", "name": "u\#(i)"}"#)
            case 2: users.append(#"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold", "k\#(k)": \#(i), "age": \#(i % 70), "gone": null}"#)
            default: users.append(#"{"name": "u\#(i)", "tier": "silver", "k\#(k)": true}"#)
            }
        }
        for memo in [false, true] {
            let (flat, context) = try bothWays(memo: memo, users: users)
            XCTAssertEqual(flat.0.count, 3_000)
            XCTAssertEqual(flat.0, context.0, "memo \(memo), \(sets) keys")
            XCTAssertEqual(flat.1, context.1, "memo \(memo), \(sets) keys")
        }
    }

    /// The users of `file` through one worker with views made from the line and no memo (every
    /// rule called for every user): the output lines, each batch's failures and error notes (as
    /// text; none when all went well), and the engine, whose log holds what the rules printed.
    private func evalFlatWithoutMemo(_ screens: PopulationScreens, _ file: String) throws -> (lines: [String], problems: [String], engine: PluginEngine) {
        let engine = try XCTUnwrap(screens.workspace.pluginHost as? PluginEngine)
        engine.sandbox.logCapBytes = 64 << 20
        let input = try UserInput.open(file, format: .jsonl, fileLimits: .standard).get()
        let worker = EvalWorker(screens: screens, parser: input.parser, writer: EvalLineWriter(format: .jsonl, select: .visible), memo: false, flat: true)
        var lines: [String] = [], problems: [String] = []
        while let b = input.nextBatch() {
            let chunk = worker.process(b)
            if !chunk.failures.isEmpty || chunk.notes.hasErrors { problems.append("\(chunk.failures.count) failures, \(chunk.notes.order)") }
            lines += String(decoding: chunk.text, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return (lines, problems, engine)
    }

    /// The table behind a view made from the line is kept for the next user of the same keys
    /// (`loom_push_reused_view`), and the view is retired when the next user comes: a rule that
    /// keeps views (outside the contract: rules must be deterministic) never reads a later user
    /// through one. Every earlier view a rule kept either shows the user it was made for or
    /// raises the retired view's error; it is never another user's.
    func testAViewKeptFromAnEarlierUserNeverShowsALaterOne() throws {
        let lua = """
            local kept = {}
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("keep", function(u)
                local shown, retired = 0, 0
                for _, k in ipairs(kept) do
                  local ok, id = pcall(function() return k.view.id end)
                  local okp, n = pcall(function() local n = 0 for _ in pairs(k.view) do n = n + 1 end return n end)
                  local okr, raw = pcall(rawget, k.view, "id")
                  if ok and id ~= k.id or okr and raw ~= k.id then print("LEAK " .. tostring(k.id) .. " shows " .. tostring(id or raw)) end
                  if ok then shown = shown + 1 else retired = retired + 1 end
                  if not ok and not tostring(id):find("kept from an earlier user", 1, true) then print("OTHER " .. tostring(id)) end
                  if ok ~= okp or ok ~= okr then print("MIXED " .. tostring(k.id)) end
                end
                print("shown " .. shown .. " retired " .. retired)
                kept[#kept + 1] = { view = u, id = u.id }
                if #kept > 4 then table.remove(kept, 1) end
                return true
              end)
            end }
            """
        // Two shapes of keys, alternating and repeating, so that every view's table is set again
        // for later users.
        let users = (0..<400).map { i in
            i % 3 == 0 ? #"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold"}"# : #"{"id": "id-\#(i)", "age": \#(i)}"#
        }
        let (screens, file) = try openRuleLabels(lua: lua, rules: [#""keep""#], users: users)
        let (lines, _, engine) = try evalFlatWithoutMemo(screens, file)
        XCTAssertEqual(lines.count, 400)
        let log = engine.log.map { $0.1 }
        XCTAssertFalse(log.contains { $0.hasPrefix("LEAK") || $0.hasPrefix("OTHER") || $0.hasPrefix("MIXED") }, "\(log.filter { !$0.hasPrefix("shown") }.prefix(5))")
        // Views were kept and used: some retired (the flat path's), some still showing their own
        // user (the views the usual path makes when a call fails and the user is resolved again).
        XCTAssertTrue(log.contains { $0.hasPrefix("shown") && !$0.hasSuffix("retired 0") }, "\(log.prefix(5))")
    }

    /// Two plugins each keeping the views they are given, their calls alternating for each user
    /// (each plugin's view kept at a slot of its own: `PluginEngine.flatViewRef`): within a user
    /// a plugin's calls share one view, and once the next user comes every earlier view of
    /// either plugin is retired, whichever plugin's call comes first.
    func testViewsKeptByTwoPluginsAreAllRetired() throws {
        func keeper(_ name: String) -> String {
            """
            local kept = {}
            return { name = "\(name)", version = "1.0.0", api = 1, register = function(host)
              host.rule("keep_\(name)", function(u)
                local shown, retired = 0, 0
                for _, k in ipairs(kept) do
                  local ok, id = pcall(function() return k.view.id end)
                  if ok and id ~= k.id then print("LEAK " .. tostring(k.id) .. " shows " .. tostring(id)) end
                  if ok and k.id ~= u.id then print("LIVE " .. tostring(k.id) .. " at " .. tostring(u.id)) end
                  if not ok and k.id == u.id then print("RETIRED TOO SOON " .. tostring(k.id)) end
                  if k.id == u.id and rawequal(k.view, u) == false then print("TWO VIEWS " .. tostring(u.id)) end
                  if ok then shown = shown + 1 else retired = retired + 1 end
                end
                print("shown " .. shown .. " retired " .. retired)
                kept[#kept + 1] = { view = u, id = u.id }
                if #kept > 6 then table.remove(kept, 1) end
                return true
              end)
            end }
            """
        }
        // Two shapes of keys, so that each view's table is set again for later users.
        let users = (0..<300).map { i in
            i % 2 == 0 ? #"{"name": "u\#(i)", "id": "id-\#(i)", "tier": "gold"}"# : #"{"id": "id-\#(i)", "age": \#(i)}"#
        }
        let (screens, file) = try openRuleLabels(lua: keeper("g"), rules: [#""keep_g""#, #""keep_h""#, #""keep_g""#, #""keep_h""#],
                                                 users: users, more: ["h": keeper("h")])
        let (lines, problems, engine) = try evalFlatWithoutMemo(screens, file)
        XCTAssertTrue(problems.isEmpty, "\(problems.prefix(3))")
        XCTAssertEqual(lines.count, 300)
        XCTAssertTrue(lines.allSatisfy { $0.contains(#""visible":["root","c0","c1","c2","c3"]"#) }, "\(lines.prefix(2))")
        let log = engine.log
        let bad = log.filter { !$0.1.hasPrefix("shown") }
        XCTAssertTrue(bad.isEmpty, "\(bad.prefix(5))")
        // Both plugins' calls were made with views from the line, and both saw earlier users'
        // views retired.
        for plugin in ["g", "h"] {
            let mine = log.filter { $0.0 == plugin }.map(\.1)
            XCTAssertEqual(mine.count, 600, plugin)
            XCTAssertTrue(mine.contains { $0.hasSuffix("retired 6") }, "\(plugin): \(mine.suffix(3))")
        }
    }
}
