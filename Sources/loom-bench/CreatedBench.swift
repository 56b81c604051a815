import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace

/// `created`: nodes builders create with `ui.*` against the same nodes written in the screen
/// file. 100 cards, each a label and a button: as a `card` single whose builder creates both
/// (`ui.label{…}`, `ui.button{…}`), and as a cluster whose two children are in the JSON. Warm
/// resolutions (the workspace's caches in use), users alternating; "gated": every button has a
/// rule, which the created screen evaluates after the rule plan, live (it is not in the plan),
/// before reusing its tree.
struct CreatedFigures {
    var cards = 0
    var jsonUs = 0.0, createdUs = 0.0, jsonGatedUs = 0.0, createdGatedUs = 0.0
}

func createdBench(runs: Int, tmp: String) -> CreatedFigures {
    var f = CreatedFigures()
    let root = tmp + "/created"
    try? FileManager.default.createDirectory(atPath: root + "/screens", withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(atPath: root + "/plugins/cards", withIntermediateDirectories: true)
    try! #"{"name": "created-bench"}"#.write(toFile: root + "/loom.json", atomically: true, encoding: .utf8)
    try! #"{"a": {"tier": "gold"}, "b": {"tier": "free"}}"#.write(toFile: root + "/users.json", atomically: true, encoding: .utf8)
    try! """
        return { name = "cards", version = "1.0.0", api = 1, register = function(host)
          host.rule("is_gold", function(user) return user.tier == "gold" end)
          host.single("card", function(node)
            return { view = "Card", children = {
              ui.label{ text = node.meta.title },
              ui.button{ title = "Buy", action = "buy", rule = node.meta.gated and "is_gold" or nil },
            } }
          end, { meta = { title = "string", gated = "boolean" } })
          host.cluster("card_json", function(node, children) return { view = "Card" } end)
        end }
        """.write(toFile: root + "/plugins/cards/plugin.lua", atomically: true, encoding: .utf8)
    f.cards = 100
    func screen(_ id: String, created: Bool, gated: Bool) {
        var cards: [String] = []
        for i in 0..<f.cards {
            if created {
                cards.append(#"{"type": "card", "id": "c\#(i)", "meta": {"title": "t\#(i)", "gated": \#(gated)}}"#)
            } else {
                let rule = gated ? #", "rule": "is_gold""# : ""
                cards.append(#"{"type": "card_json", "id": "c\#(i)", "children": [{"type": "label", "meta": {"text": "t\#(i)"}}, {"type": "button", "meta": {"title": "Buy"}, "action": "buy"\#(rule)}]}"#)
            }
        }
        let text = #"{"screen": "\#(id)", "root": {"type": "stack", "id": "root", "children": [\#(cards.joined(separator: ","))]}}"#
        try! text.write(toFile: root + "/screens/\(id).json", atomically: true, encoding: .utf8)
    }
    screen("json", created: false, gated: false)
    screen("created", created: true, gated: false)
    screen("json_gated", created: false, gated: true)
    screen("created_gated", created: true, gated: true)

    var options = Workspace.Options()

    options.pluginHost = PluginEngine.host
    options.project = root
    let ws = try! Workspace(options: options)
    let a = try! ws.users.user(named: "a", context: [], now: nil).get()
    let b = try! ws.users.user(named: "b", context: [], now: nil).get()
    func warm(_ id: String) -> Double {
        let loaded = ws.screen(file: root + "/screens/\(id).json")
        let s = loaded.screen!, check = loaded.check!
        for u in [a, b] {
            let r = ws.resolve(s, check: check, user: u)
            precondition(!r.diagnostics.hasErrors, "created bench: \(r.diagnostics.errors)")
        }
        let t0 = now()
        for k in 0..<runs { _ = ws.resolve(s, check: check, user: k % 2 == 0 ? b : a) }
        return Double(now() - t0) / Double(runs) / 1000
    }
    // Interleaved, best of each (a noisy neighbour hurts all alike).
    f.jsonUs = .infinity; f.createdUs = .infinity; f.jsonGatedUs = .infinity; f.createdGatedUs = .infinity
    for _ in 0..<3 {
        f.jsonUs = min(f.jsonUs, warm("json"))
        f.createdUs = min(f.createdUs, warm("created"))
        f.jsonGatedUs = min(f.jsonGatedUs, warm("json_gated"))
        f.createdGatedUs = min(f.createdGatedUs, warm("created_gated"))
    }
    return f
}
