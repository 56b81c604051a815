import Foundation
import XCTest

/// Two small projects for parameters and state-dependent navigation: `lua` (its main flow in
/// Lua, tabs, reading ctx.user and ctx.params) and `declarative` (flows.json with `when`
/// alternatives and `accepts_when_hidden`).
enum ParamsFixtures {
    static let users = #"{"gold": {"tier": "gold"}, "free": {"tier": "free"}}"#

    static let screens: [String: String] = [
        "screens/home.json": """
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "b42", "meta": {"title": "Item 42"}, "action": "item:42"},
              {"type": "button", "id": "b7", "meta": {"title": "Item 7"}, "action": "item:7"},
              {"type": "button", "id": "prem", "meta": {"title": "Premium"}, "action": "premium"},
              {"type": "button", "id": "side", "meta": {"title": "Side"}, "action": "open_side"},
              {"type": "button", "id": "tab2", "meta": {"title": "Second"}, "action": "tab:second"}
            ]}}
            """,
        "screens/item.json": """
            {"screen": "item", "root": {"type": "stack", "id": "root", "children": [
              {"type": "title", "id": "title"},
              {"type": "label", "id": "bound", "meta": {"text": {"$param": "id"}}},
              {"type": "label", "id": "only42", "rule": {"equals": {"params.id": "42"}}, "meta": {"text": "the answer"}},
              {"type": "button", "id": "more", "meta": {"title": "More"}, "action": "item:8"},
              {"type": "button", "id": "tab2", "meta": {"title": "Second"}, "action": "tab:second"}
            ]}}
            """,
        "screens/second.json": """
            {"screen": "second", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "tab1", "meta": {"title": "Home"}, "action": "tab:home"}
            ]}}
            """,
        "screens/lounge.json": #"{"screen": "lounge", "root": {"type": "label", "id": "l", "meta": {"text": "Lounge"}}}"#,
        "screens/upgrade.json": #"{"screen": "upgrade", "root": {"type": "label", "id": "u", "meta": {"text": "Upgrade"}}}"#,
        "screens/side.json": """
            {"screen": "side", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "x", "meta": {"title": "Nothing"}, "action": "nothing"}
            ]}}
            """,
    ]

    static let titlePlugin = """
        return { name = "shop", version = "1.0.0", api = 1, register = function(host)
          host.single("title", function(node)
            local p = node.params or {}
            return { view = "Title", props = { id = p.id, from = p.from, text = p.id and ("Item " .. p.id) or "no item" } }
          end, { description = "the item the screen was opened with" })
          %FLOW%
        end }
        """

    static let luaFlow = """
        host.flow("main", {
            presentation = "tabs", start = "home",
            links = { ["app://item/{id}"] = "item:{id}" },
            navigate = function(step, nav, ctx)
              if step.name == "item" then return nav.push("item", { id = step.param, from = ctx.params.id }) end
              if step.name == "premium" then
                if ctx.user.tier == "gold" then return nav.push("lounge") end
                return nav.push("upgrade")
              end
              if step.name == "tab" then return nav.tab(step.param) end
              if step.name == "open_side" then ctx.user.tier = "hacked" end
              return nav.none()
            end,
          })
        """

    /// The project with its main flow in Lua.
    static func lua() throws -> URL {
        let root = try Host.temporaryFolder("params-lua")
        var files = screens
        files["loom.json"] = #"{"name": "lua", "entry": "main"}"#
        files["users.json"] = users
        files["plugins/shop/plugin.lua"] = titlePlugin.replacingOccurrences(of: "%FLOW%", with: luaFlow)
        try Host.write(files, under: root)
        return root
    }

    /// The project with flows.json: `premium` chooses by rule, `reset` is accepted while hidden.
    static func declarative(acceptsReset: Bool = true) throws -> URL {
        let root = try Host.temporaryFolder("params-json")
        var files = screens
        files["loom.json"] = #"{"name": "json", "entry": "main", "rules": {"is_gold": {"equals": {"tier": "gold"}}}}"#
        files["users.json"] = users
        files["plugins/shop/plugin.lua"] = titlePlugin.replacingOccurrences(of: "%FLOW%", with: "")
        files["flows.json"] = """
            {"flows": {
              "main": {"presentation": "stack", "start": "home",
                \(acceptsReset ? #""accepts_when_hidden": ["reset"],"# : "")
                "steps": {
                  "item": {"push": "item"},
                  "premium": [{"when": "is_gold", "push": "lounge"}, {"push": "upgrade"}],
                  "open_side": {"flow": "side"},
                  "reset": {"push": "upgrade"},
                  "tab": {"none": true}
                },
                "links": {"app://item/{id}": "item:{id}"}},
              "side": {"presentation": "modal", "start": "side", "steps": {"nothing": {"none": true}}}
            }}
            """
        try Host.write(files, under: root)
        return root
    }
}
