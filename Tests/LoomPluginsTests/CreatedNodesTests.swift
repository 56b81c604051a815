import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
@testable import LoomTesting
import LuaRuntime
import XCTest

/// Builders create nodes with `ui.*` (docs/plugin-api.md, "Creating nodes: ui.*"): each goes
/// through its type's schema, rule, style and builder like a node of the screen file, is located
/// at its Lua line and named by the path `<parent>/ui[k]`.
final class CreatedNodesTests: XCTestCase {
    struct Loaded {
        var ws: Workspace
        var screen: Screen
        var check: ScreenCheck
        var dir: String
        var loadText: String
    }

    func project(register: String, screen: String, limits: PluginLimits = .default) throws -> Loaded {
        let dir = try PluginTestKit.writeProject(for: self, name: "created", register: register, screen: screen,
                                                 users: #"{"gold": {"tier": "gold"}, "silver": {"tier": "silver"}}"#)
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = dir.path
        o.standardPlugins = PluginTestKit.packageRoot + "/Plugins"
        o.limits = limits
        let ws = try Workspace(options: o)
        var d = ws.loadDiagnostics
        let loaded = ws.screen(file: dir.path + "/screens/s.json")
        d.append(contentsOf: loaded.diagnostics)
        let screen = try XCTUnwrap(loaded.screen, d.items.map(\.description).joined(separator: "\n"))
        return Loaded(ws: ws, screen: screen, check: try XCTUnwrap(loaded.check), dir: dir.path,
                      loadText: d.items.map(\.description).joined(separator: "\n"))
    }

    func user(_ l: Loaded, _ name: String) throws -> UserProfile {
        guard case .success(let p) = l.ws.users.user(named: name, context: [], now: nil) else { throw XCTSkip("no user \(name)") }
        return p
    }

    func resolve(_ l: Loaded, _ name: String = "gold", explain: Bool = false) throws -> (Resolution, String) {
        let r = l.ws.resolve(l.screen, check: l.check, user: try user(l, name), explain: explain)
        return (r, r.diagnostics.items.map(\.description).joined(separator: "\n"))
    }

    /// Every node as `path type view [hidden]`, depth first.
    func lines(_ r: Resolution) -> [String] {
        var out: [String] = []
        r.tree?.walk { n in out.append("\(n.path) \(n.type)" + (n.hidden ? " hidden" : " \(n.view)")) }
        return out
    }

    static let card = """
        host.single("card", function(node)
          return { view = "Card", children = {
            ui.label{ text = node.meta.title, constraints = { "height == 44" } },
            ui.button{ title = "Buy", action = "buy" },
          } }
        end, { meta = { title = "string" } })
        """

    func testCompositeCardIsALabelAndAButton() throws {
        let l = try project(register: Self.card, screen: #"{"screen": "s", "root": {"type": "card", "id": "c", "meta": {"title": "Hello"}}}"#)
        XCTAssertEqual(l.loadText, "")
        let (r, text) = try resolve(l)
        XCTAssertEqual(text, "")
        XCTAssertEqual(lines(r), ["root card Card", "root/ui[0] label Label", "root/ui[1] button Button"])
        let label = try XCTUnwrap(r.tree?.children.first)
        XCTAssertEqual(label.props, .object(["text": "Hello"]))
        XCTAssertEqual(label.location.description, l.dir + "/plugins/t/plugin.lua:4:1")
        XCTAssertEqual(label.origin?.constraints?.plain, .array(["height == 44"]))
        XCTAssertTrue(label.isCreated)
        let button = r.tree!.children[1]
        XCTAssertEqual(button.props, .object(["title": "Buy"]))
        XCTAssertEqual(button.action, "buy")
        XCTAssertEqual(r.actions.map(\.path), ["root/ui[1]"])
        // --explain names where each was created.
        let (e, _) = try resolve(l, explain: true)
        let out = TreeOutput.text(e, style: Style(color: false), explain: true)
        XCTAssertTrue(out.contains("[created at \(l.dir)/plugins/t/plugin.lua:5:1]"), out)
        XCTAssertEqual(TreeOutput.json(e.tree!.children[0], explain: true).object?["created_at"], .string(l.dir + "/plugins/t/plugin.lua:4:1"))
    }

    func testCreatedNodeWithARuleIsShownPerUser() throws {
        let register = """
            host.rule("is_gold", function(user) return user.tier == "gold" end)
            host.single("promo", function(node)
              return { view = "Promo", children = {
                ui.label{ text = "Gold deal", rule = "is_gold" },
                ui.label{ text = "For all" },
              } }
            end)
            """
        let l = try project(register: register, screen: #"{"screen": "s", "root": {"type": "promo"}}"#)
        let (g, gt) = try resolve(l, "gold")
        XCTAssertEqual(gt, "")
        XCTAssertEqual(lines(g), ["root promo Promo", "root/ui[0] label Label", "root/ui[1] label Label"])
        let (s, _) = try resolve(l, "silver")
        XCTAssertEqual(lines(s), ["root promo Promo", "root/ui[1] label Label"])
        // Again for gold: the cached resolution does not reuse silver's tree.
        let (g2, _) = try resolve(l, "gold")
        XCTAssertEqual(lines(g2), lines(g))
        let (e, _) = try resolve(l, "silver", explain: true)
        XCTAssertEqual(lines(e), ["root promo Promo", "root/ui[0] label hidden", "root/ui[1] label Label"])
        XCTAssertEqual(e.tree?.children[0].hiddenReason, "rule is_gold is false")
    }

    func testUnknownTypeIsALuaErrorAtTheCallersLineWithDidYouMean() throws {
        let register = """
            host.single("card", function(node)
              return { view = "Card", children = { ui.lable{ text = "x" } } }
            end)
            """
        let l = try project(register: register, screen: #"{"screen": "s", "root": {"type": "card", "id": "c"}}"#)
        let (r, text) = try resolve(l)
        XCTAssertNil(r.tree)
        XCTAssertTrue(text.contains("plugin.lua:3) failed: no component type 'lable'; did you mean 'label'?"), text)
        let (_, t2) = try resolve(try project(register: """
            host.single("card", function(node)
              return { view = "Card", children = { ui.node("buton", {}) } }
            end)
            """, screen: #"{"screen": "s", "root": {"type": "card"}}"#))
        XCTAssertTrue(t2.contains("plugin.lua:3) failed: no component type 'buton'; did you mean 'button'?"), t2)
    }

    func testBadMetaTypeIsLocatedAtTheLuaLine() throws {
        let register = """
            host.single("sized", function(node) return { view = "Sized" } end, { meta = { size = "number" } })
            host.cluster("box", function(node, children)
              return { view = "Box", children = {
                ui.sized{ size = "big" },
                ui.sized{ size = 3, colour = "red" },
              } }
            end)
            """
        let l = try project(register: register, screen: #"{"screen": "s", "root": {"type": "box"}}"#)
        let (r, text) = try resolve(l)
        XCTAssertEqual(lines(r), ["root box Box", "root/ui[1] sized Sized"], text)
        let file = l.dir + "/plugins/t/plugin.lua"
        XCTAssertTrue(text.contains("\(file):5:1: error: meta 'size'"), text)
        XCTAssertTrue(text.contains("\(file):6:1: warning:") && text.contains("colour"), text)
        XCTAssertEqual(r.tree?.children[0].extraMeta, .object(["colour": "red"]))
    }

    func testRuleErrorsHideTheNodeAtTheLuaLine() throws {
        let register = """
            host.rule("is_gold", function(user) return user.tier == "gold" end)
            host.rule("boom", function(user) error("kaput") end)
            host.cluster("box", function(node, children)
              return { view = "Box", children = {
                ui.label{ text = "a", rule = "is_glod" },
                ui.label{ text = "b", rule = 42 },
                ui.label{ text = "c", rule = "boom" },
                ui.label{ text = "d", rule = { AND = { "is_gold", "is_gold" } } },
              } }
            end)
            """
        let l = try project(register: register, screen: #"{"screen": "s", "root": {"type": "box"}}"#)
        let (r, text) = try resolve(l)
        let file = l.dir + "/plugins/t/plugin.lua"
        XCTAssertEqual(lines(r), ["root box Box", "root/ui[3] label Label"], text)
        XCTAssertTrue(text.contains("\(file):6:1: error: unknown rule 'is_glod'") && text.contains("did you mean 'is_gold'?"), text)
        XCTAssertTrue(text.contains("\(file):7:1: error:"), text)
        XCTAssertTrue(text.contains("\(file):8:1: error: rule 'boom' of plugin t failed"), text)
    }

    func testABuilderCreatingItselfStopsAtTheDepthBound() throws {
        let register = """
            host.single("card", function(node)
              return { view = "Card", children = { ui.card{} } }
            end)
            """
        let l = try project(register: register, screen: #"{"screen": "s", "root": {"type": "card"}}"#)
        let (r, text) = try resolve(l)
        XCTAssertEqual(lines(r).count, CreatedNodeLimits.maxDepth + 1, text)
        XCTAssertEqual(lines(r).last, "root" + String(repeating: "/ui[0]", count: CreatedNodeLimits.maxDepth) + " card Card")
        XCTAssertTrue(text.contains("nests more than \(CreatedNodeLimits.maxDepth) levels of created nodes"), text)
        XCTAssertEqual(r.diagnostics.errors.count, 1, text)
    }

    func testTheCountBoundHidesWhatIsCreatedPastIt() throws {
        let register = """
            host.single("many", function(node)
              local out = {}
              for i = 1, 4000 do out[i] = ui.view{} end
              return { view = "Many", children = out }
            end)
            host.single("too_many", function(node)
              local out = {}
              for i = 1, 10001 do out[i] = ui.view{} end
              return { view = "Many", children = out }
            end)
            """
        // (Debug builds are slow: a generous time budget, so only the bounds decide.)
        let l = try project(register: register, screen: #"""
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "many", "id": "a"}, {"type": "many", "id": "b"}, {"type": "many", "id": "c"}, {"type": "too_many", "id": "d"}]}}
            """#, limits: PluginLimits(timeBudgetMilliseconds: 20_000))
        let (r, text) = try resolve(l)
        var visible = 0
        r.tree?.walk { n in if n.type == "view" { visible += 1 } }
        XCTAssertEqual(visible, CreatedNodeLimits.maxCount, text)
        XCTAssertTrue(text.contains("builders created more than \(CreatedNodeLimits.maxCount) nodes in this resolution"), text)
        XCTAssertTrue(text.contains("more than 10000 nodes created in one builder call"), text)
        XCTAssertEqual(r.tree?.children.map(\.id), ["a", "b", "c"])
    }

    func testPathsAreStableAcrossUsersAndRuns() throws {
        let register = """
            host.rule("is_gold", function(user) return user.tier == "gold" end)
            host.single("card", function(node)
              return { view = "Card", children = {
                ui.label{ text = "gold", rule = "is_gold" },
                ui.stack{ ui.label{ text = "a" }, ui.label{ text = "b" } },
              } }
            end)
            """
        let screen = #"{"screen": "s", "root": {"type": "stack", "children": [{"type": "card", "id": "x"}, {"type": "card", "id": "y"}]}}"#
        let l = try project(register: register, screen: screen)
        let (s, _) = try resolve(l, "silver")
        XCTAssertEqual(lines(s), [
            "root stack StackView", "root/children[0] card Card", "root/children[0]/ui[1] stack StackView",
            "root/children[0]/ui[1]/ui[0] label Label", "root/children[0]/ui[1]/ui[1] label Label",
            "root/children[1] card Card", "root/children[1]/ui[1] stack StackView",
            "root/children[1]/ui[1]/ui[0] label Label", "root/children[1]/ui[1]/ui[1] label Label",
        ])
        let again = try project(register: register, screen: screen)
        let (s2, _) = try resolve(again, "silver")
        XCTAssertEqual(TreeOutput.text(s2, style: Style(color: false)), TreeOutput.text(s, style: Style(color: false)))
    }

    func testCreatedAndGivenChildrenMix() throws {
        let register = """
            host.cluster("box", function(node, children)
              return { view = "Box", children = { ui.label{ text = "first" }, children[2], ui.button{ title = "last" }, "a" } }
            end)
            host.cluster("seen", function(node, children)
              local types = {}
              for i, c in ipairs(children) do types[i] = c.type .. ":" .. c.view end
              return { view = "Seen", props = { types = table.concat(types, ",") } }
            end)
            """
        let l = try project(register: register, screen: #"""
            {"screen": "s", "root": {"type": "box", "children": [{"type": "label", "id": "a"}, {"type": "label", "id": "b"}]}}
            """#)
        let (r, text) = try resolve(l)
        XCTAssertEqual(text, "")
        XCTAssertEqual(lines(r), ["root box Box", "root/ui[0] label Label", "root/children[1] label Label", "root/ui[1] button Button", "root/children[0] label Label"])
        // A created cluster's builder sees its created children resolved.
        let l2 = try project(register: register + """

            host.single("outer", function(node)
              return { view = "Outer", children = { ui.seen{ ui.label{ text = "x" }, ui.button{} } } }
            end)
            """, screen: #"{"screen": "s", "root": {"type": "outer"}}"#)
        let (r2, t2) = try resolve(l2)
        XCTAssertEqual(r2.tree?.children.first?.props, .object(["types": "label:Label,button:Button"]), t2)
    }

    func testMisuseIsReported() throws {
        let register = """
            local at_load = pcall(function() return ui.label{} end)
            host.rule("made_in_rule", function(user) local ok, e = pcall(ui.node, "label", {}); return not ok and e:find("only while a component builder runs") ~= nil end)
            host.single("dropped", function(node) local l = ui.label{}; return { view = "D" } end)
            host.single("twice", function(node) local l = ui.label{}; return { view = "T", children = { l, l } } end)
            host.single("writes", function(node) ui.label = 1; return { view = "W" } end)
            host.single("given", function(node) return { view = "G", children = { ui.stack{ { type = "label" } } } } end)
            host.single("loaded", function(node) return { view = at_load and "Bad" or "Fine" } end)
            """
        let l = try project(register: register, screen: #"""
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "dropped", "id": "a"}, {"type": "twice", "id": "b"}, {"type": "writes", "id": "c"}, {"type": "given", "id": "d"},
              {"type": "loaded", "id": "e", "rule": "made_in_rule"}]}}
            """#)
        let (r, text) = try resolve(l)
        XCTAssertEqual(lines(r), ["root stack StackView", "root/children[4] loaded Fine"], text)
        XCTAssertTrue(text.contains("is in neither 'children' nor under another created node"), text)
        XCTAssertTrue(text.contains("'children'[2]: it is placed twice"), text)
        XCTAssertTrue(text.contains("the ui table is read-only (field 'label')"), text)
        XCTAssertTrue(text.contains("[1] is not a node made by ui.* in this builder call"), text)
    }

    /// The cached resolution (rule plan, stored trees, cached builder outputs) and the uncached
    /// one give the same output and diagnostics, byte for byte, user after user.
    func testCachedAndUncachedResolutionsAgree() throws {
        let register = """
            host.rule("is_gold", function(user) return user.tier == "gold" end)
            host.single("card", function(node)
              return { view = "Card", children = {
                ui.label{ text = node.meta.title, rule = "is_gold" },
                ui.button{ title = "Buy", action = "buy", colour = "red" },
              } }
            end, { meta = { title = "string" } })
            host.single("plain", function(node) return { view = "Plain", children = { ui.label{ text = "p" } } } end)
            host.rule("boom_silver", function(user) if user.tier ~= "gold" then error("kaput") end return true end)
            host.single("risky", function(node)
              return { view = "Risky", children = { ui.label{ text = "r", rule = { OR = { "boom_silver", "is_gold" } } } } }
            end)
            """
        let l = try project(register: register, screen: #"""
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "card", "id": "a", "meta": {"title": "A"}}, {"type": "plain", "id": "p", "rule": "is_gold"},
              {"type": "card", "id": "b", "meta": {"title": "B"}, "rule": {"NOT": "is_gold"}}, {"type": "risky", "id": "r"}]}}
            """#)
        for name in ["gold", "silver", "gold", "silver", "gold"] {
            let u = try user(l, name)
            let cached = l.ws.resolve(l.screen, check: l.check, user: u)
            let uncached = Resolver(factory: l.ws.factory, screen: l.screen, check: l.check, cache: nil).resolve(for: u)
            XCTAssertEqual(TreeOutput.text(cached, style: Style(color: false)), TreeOutput.text(uncached, style: Style(color: false)), name)
            XCTAssertEqual(TreeOutput.json(cached.tree!), TreeOutput.json(uncached.tree!), name)
            XCTAssertEqual(cached.diagnostics.items.map(\.description), uncached.diagnostics.items.map(\.description), name)
            XCTAssertEqual(cached.tree?.children.count, 3)
            XCTAssertEqual(cached.diagnostics.errors.count, name == "gold" ? 0 : 1, name)
            XCTAssertEqual(cached.tree?.children.map { $0.children.count }, name == "gold" ? [2, 1, 1] : [1, 1, 0], name)
        }
    }
}
