import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import LoomStyles
import OrderedCollections
import XCTest

/// A user view (unless a value nests too deep) is made in one call into C
/// (`PluginEngine.frozenView`, `LuaState.pushFrozenTree`) instead of member by member and
/// then frozen by the sandbox. Rules must not be able to tell: what they read, the order `pairs`
/// and `next` give, `#`, `type`, `tostring`'s form and the error a write raises are the same for
/// every user, with either way of making the view.
final class UserViewInOneCallTests: XCTestCase {
    /// One rule that logs everything a rule can observe of its user view (`prelude`, then what
    /// `register(host)` runs).
    static let prelude = #"""
        local function show(v)
          if type(v) == "number" then return math.type(v) .. ":" .. string.format("%.17g", v) .. (1 / v < 0 and "-" or "") end
          if type(v) == "table" then
            -- Nested tables: their members in `next` order, their length, and that they are read-only.
            local p = {}
            for k, x in pairs(v) do p[#p + 1] = tostring(k) .. "=" .. show(x) end
            local ok = pcall(function() v[1] = 0 end)
            return "{" .. table.concat(p, ",") .. "}#" .. #v .. (ok and "writable" or "")
          end
          return type(v) .. ":" .. tostring(v)
        end

        """#
    static let register = #"""
          host.rule("dump", function(user)
            local p = {}
            for k, v in pairs(user) do p[#p + 1] = k .. "=" .. show(v) end
            local n = {}
            local k = next(user)
            while k ~= nil do n[#n + 1] = k; k = next(user, k) end
            local ok, err = pcall(function() user.tier = "gold" end)
            local ok2, err2 = pcall(function() rawset(user, "tier", "gold") end)
            host.log(table.concat(p, ",") .. " | next " .. table.concat(n, ",") .. " | #" .. #user .. " | " .. type(user)
              .. " | " .. (tostring(user):match("^table: ") and "table:" or tostring(user))
              .. " | " .. tostring(ok) .. " " .. tostring(err):gsub("^.-: ", "") .. " | " .. tostring(ok2) .. " " .. tostring(err2):gsub("^.-: ", "")
              .. " | tier=" .. show(user.tier) .. " profile=" .. show(user.profile) .. " missing=" .. show(user.missing)
              .. " | " .. tostring(getmetatable(user)))
            return true
          end)
        """#

    func workspace(oneCall: Bool) throws -> (Workspace, Screen, ScreenCheck) {
        let dir = try PluginTestKit.writeProject(for: self, name: "oneCallView", prelude: Self.prelude, register: Self.register,
                                                 screen: IsolationTests.screen([("d", "dump")]), users: "{}")
        let (ws, screen, check) = try PluginTestKit.openScreen(project: dir.path)
        ws.engine.userViewsInOneCall = oneCall
        return (ws, screen, check)
    }

    static func users() -> [UserProfile] {
        func u(_ name: String?, _ a: OrderedDictionary<String, JSONValue>) -> UserProfile { UserProfile(name: name, attributes: a) }
        var many: OrderedDictionary<String, JSONValue> = [:]
        for i in 0..<40 { many["k\(i * 7 % 40)"] = i % 3 == 0 ? .int(i) : i % 3 == 1 ? .string("v\(i)") : .bool(i % 2 == 0) }
        return [
            u("gold", ["tier": "gold", "age": 30, "score": .double(0.5), "beta": true]),
            u(nil, [:]),
            u("only-name", [:]),
            u(nil, ["tier": "free"]),
            u("one", ["tier": "free"]),
            u("nulls", ["a": .null, "tier": "silver", "b": .null]),
            u("all-null", ["a": .null, "b": .null]),
            u("has-profile", ["profile": "chosen", "tier": "gold"]),
            u("null-profile", ["profile": .null, "tier": "gold"]),
            u("numbers", ["i": .int(Int.max), "j": .int(Int.min), "z": .double(-0.0), "d": .double(1e300), "f": .double(2.0)]),
            u("bytes", ["nul": .string("a\u{0}b"), "key\u{0}nul": "x", "": "empty key", "\u{E9}": "precomposed"]),
            u("decomposed", ["e\u{301}": "decomposed", "tier": .string("e\u{301}")]),
            u("many", many),
            u("nested", ["tier": "gold", "tags": .array(["a", "b"])]),
            u("object", ["tier": "gold", "address": .object(["city": "Oslo", "zip": .null, "lines": .array(["a", .null, .object([:])])])]),
            u("deep", ["tier": "gold", "deep": (0..<(2 * JSONReader.maxDepth + 2)).reduce(JSONValue.int(1)) { v, _ in .array([v]) }]),
            u("params", ["params": "mine", "params.id": "mine too", "tier": "gold"]),
            // Attributes a template element's fields take over (`"as": "r"`: `r`, `r.name`, …),
            // between attributes of the user's own: the element's keep their places.
            u("element-shadowed", ["tier": "gold", "r": "mine", "age": 30, "r.name": "mine too", "r.id": .int(5), "zzz": true]),
            // The element's fields over the user's of the same names, the element itself (`r`) not:
            // each keeps the user's place, with the element's value (a string, a number, a null).
            u("element-fields-shadowed", ["r.name": "mine", "tier": "gold", "r.id": "five", "r.tags": .null, "r.zip": .int(1), "age": 30]),
        ]
    }

    /// For each user, what the rule logged with a view made in one call and with one made member
    /// by member, in the same Lua state (the order `next` gives depends on the state's hash seed,
    /// so views are compared within one state).
    func logs(device: DeviceContext?, params: [String: String] = [:]) throws -> [(oneCall: String, members: String)] {
        let (ws, s, c) = try workspace(oneCall: true)
        ws.useDevice(device)
        func log(_ user: UserProfile, oneCall: Bool) -> String {
            ws.engine.userViewsInOneCall = oneCall
            let before = ws.engine.log.count
            let r = ws.resolve(s, check: c, user: user, params: params)
            XCTAssertTrue(r.diagnostics.items.isEmpty, "\(user.name ?? "-"): \(r.diagnostics.items)")
            let lines = ws.engine.log.dropFirst(before).map(\.1)
            XCTAssertEqual(lines.count, 1, "\(user.name ?? "-")")
            return (user.name ?? "-") + ": " + lines.joined()
        }
        return Self.users().map { (log($0, oneCall: true), log($0, oneCall: false)) }
    }

    func testBothWaysOfMakingAViewShowRulesTheSameUser() throws {
        let ipad = try DeviceContext.parse(device: "ipad", orientation: "landscape", traits: nil).get()
        for (device, params) in [(nil, [:]), (ipad, [:]), (nil, ["id": "7", "a": "b"]), (ipad, ["id": "8"])] {
            let both = try logs(device: device, params: params)
            let seen = both.map(\.oneCall)
            for (a, b) in both { XCTAssertEqual(a, b) }
            // What the rule saw is what the user holds (not merely the same both ways).
            XCTAssertTrue(seen[0].contains("tier=string:gold") && seen[0].contains("age=integer:30") && seen[0].contains("score=float:0.5")
                          && seen[0].contains("beta=boolean:true") && seen[0].contains("profile=string:gold"), seen[0])
            XCTAssertTrue(seen[0].contains("| false attempt to modify read-only table 'node' (field 'tier') |"), seen[0])
            if device == nil, params.isEmpty {
                XCTAssertTrue(seen[1].hasPrefix("-:  | next  | #0 | table"), seen[1])
                XCTAssertTrue(seen[6].hasPrefix("all-null: profile=string:all-null | next profile |"), seen[6])
            }
            if params.isEmpty { XCTAssertNil(seen[5].firstMatch(of: /[ ,]a=/), seen[5]) }
            XCTAssertTrue(seen[8].contains("tier=string:gold") && seen[8].contains("profile=nil:nil"), seen[8])
            XCTAssertTrue(seen[9].contains("z=float:-0-") && seen[9].contains("i=integer:9.2233720368547758e+18"), seen[9])
            XCTAssertTrue(seen[14].contains("address={") && seen[14].contains("city=string:Oslo") && seen[14].contains("lines={1=string:a,3={}#0}#"), seen[14])
            XCTAssertFalse(seen.joined().contains("writable"))
            XCTAssertTrue(seen[10].contains("nul=string:a\u{0}b") && seen[10].contains("key\u{0}nul=string:x") && seen[10].contains("=string:empty key"), seen[10])
        }
    }

    /// Read back as JSON (as a host function taking a table does), both views give the same
    /// value with the same key order at every level (the order each object remembers).
    func testBothWaysReadBackAsTheSameJSONInTheSameOrder() throws {
        let (ws, _, _) = try workspace(oneCall: true)
        let ipad = try DeviceContext.parse(device: "ipad", orientation: nil, traits: nil).get()
        let engine = ws.engine, state = engine.state
        for device in [nil, ipad] {
            ws.useDevice(device)
            for user in Self.users() where user.name != "deep" {
                for params in [[:], ["id": "7"]] {
                    var read: [String] = []
                    for oneCall in [true, false] {
                        engine.userViewsInOneCall = oneCall
                        let ctx = ResolutionContext(user: user, screenID: "s", explain: false, params: params)
                        ws.prepare(ctx)
                        let r = try engine.userView(ctx, owner: 0)
                        state.push(rawRef: r)
                        // (A list with a hole cannot be read back: both ways say so alike.)
                        switch state.json(at: -1) {
                        case .success(let v): read.append(v.serialized(pretty: false))
                        case .failure(let e): read.append("error: \(e.message)")
                        }
                        state.pop(1)
                    }
                    XCTAssertEqual(read[0], read[1], "\(user.name ?? "-")")
                    if device == nil, params.isEmpty {
                        if user.name == "gold" { XCTAssertEqual(read[0], #"{"tier":"gold","age":30,"score":0.5,"beta":true,"profile":"gold"}"#) }
                        if user.name == "object" { XCTAssertEqual(read[0], "error: at address.lines: a list must have keys 1...n without holes") }
                        if user.name == "nulls" { XCTAssertEqual(read[0], #"{"tier":"silver","profile":"nulls"}"#) }
                    }
                }
            }
        }
    }

    /// The one-call path is the one taken (so the comparison above compares two ways), device,
    /// nested values and parameters included, except for a value nesting as deep as the
    /// member-by-member path stops at.
    func testTheOneCallPathIsTakenUnlessAValueNestsTooDeep() throws {
        let (ws, _, _) = try workspace(oneCall: true)
        let ipad = try DeviceContext.parse(device: "ipad", orientation: nil, traits: nil).get()
        for device in [nil, ipad] {
            ws.useDevice(device)
            for user in Self.users() {
                for params in [[:], ["id": "7"]] {
                    let ctx = ResolutionContext(user: user, screenID: "s", explain: false, params: params)
                    ws.prepare(ctx)
                    let tree = params.isEmpty
                        ? PluginEngine.frozenView(user.attributes, profile: user.attributes["profile"] == nil ? user.name : nil, device: ctx.deviceAttributes)
                        : PluginEngine.frozenView(PluginEngine.viewAttributes(ctx), profile: nil, device: [:])
                    XCTAssertEqual(tree == nil, user.name == "deep", "\(user.name ?? "-")")
                }
            }
        }
    }

    /// Views of users listing the same keys share one key order (loom_frozen_tree.c keeps at
    /// most 64 per state, for keys of at most 1,024 bytes in all): every view still reads back
    /// in its own order, whether its order was kept, found kept, or made alone (more than 64
    /// orders; keys too long to keep), each time alike.
    func testSharedKeyOrdersReadBackInEachUsersOwnOrder() throws {
        let (ws, _, _) = try workspace(oneCall: true)
        let engine = ws.engine, state = engine.state
        var users: [UserProfile] = []
        for n in 0..<80 {
            // Two users per order (different values), orders differing by a rotation.
            let keys = (0..<4).map { "k\((n + $0) % 80)" }
            for v in 0..<2 {
                users.append(UserProfile(name: "u\(n)-\(v)", attributes: OrderedDictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.int(v)) })))
            }
        }
        let long = String(repeating: "x", count: 600)
        users.append(UserProfile(name: "long", attributes: [long + "1": 1, long + "2": 2, "a": 3]))
        for round in 0..<2 {
            for user in users {
                let ctx = ResolutionContext(user: user, screenID: "s", explain: false, params: [:])
                ws.prepare(ctx)
                let r = try engine.userView(ctx, owner: 0)
                state.push(rawRef: r)
                guard case .success(let v) = state.json(at: -1) else { return XCTFail("\(user.name ?? "-") cannot be read back") }
                state.pop(1)
                var want = user.attributes
                want["profile"] = .string(user.name!)
                XCTAssertEqual(v.serialized(pretty: false), JSONValue.object(want).serialized(pretty: false), "round \(round): \(user.name!)")
            }
        }
    }
}
