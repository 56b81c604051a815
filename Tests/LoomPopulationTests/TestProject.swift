import Foundation
import LoomPlugins
import LoomPopulation
import LoomStyles
import LoomWorkspace
import XCTest

extension XCTestCase {
    /// A throw-away project for these tests, removed when the test ends: an empty `loom.json`,
    /// one plugin (`plugins/NAME/plugin.lua`) and one screen (`screens/SCREEN.json`).
    func makePopulationProject(plugin name: String, lua: String, screen: String, json: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-population-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("plugins/\(name)"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Data("{}".utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data(lua.utf8).write(to: root.appendingPathComponent("plugins/\(name)/plugin.lua"))
        try Data(json.utf8).write(to: root.appendingPathComponent("screens/\(screen).json"))
        return root
    }
}

extension XCTestCase {
    /// A project whose screen `g` is a stack of labels `c0`, `c1`, … guarded by `rules` (as
    /// written in a screen), with `lua` as plugin `g` and `users` as `users.jsonl`, opened as
    /// `host eval` opens it (`device`: a chosen device context). The screens and the users
    /// file's path.
    /// `more`: further plugins, by folder name, beside `g`.
    func openRuleLabels(lua: String, rules: [String], users: [String], device: DeviceContext? = nil,
                        more: [String: String] = [:]) throws -> (PopulationScreens, String) {
        let children = rules.enumerated().map { k, r in #"{"type": "label", "id": "c\#(k)", "meta": {"text": "x"}, "rule": \#(r)}"# }
        let root = try makePopulationProject(plugin: "g", lua: lua, screen: "g",
                                             json: #"{"screen": "g", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ", "))]}}"#)
        for (name, source) in more {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("plugins/\(name)"), withIntermediateDirectories: true)
            try Data(source.utf8).write(to: root.appendingPathComponent("plugins/\(name)/plugin.lua"))
        }
        let file = root.appendingPathComponent("users.jsonl").path
        try Data(users.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = root.path
        o.device = device
        let (opened, d) = PopulationScreens.open(options: o, screens: ["g"])
        return (try XCTUnwrap(opened, "\(d.items)"), file)
    }
}
