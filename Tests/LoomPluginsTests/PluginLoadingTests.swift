import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

final class PluginLoadingTests: XCTestCase {
    static let components: [String: (plugin: String, kind: ComponentKind, call: String)] = [
        "label": ("basic", .single, "single"), "button": ("basic", .single, "single"),
        "image": ("basic", .single, "single"), "view": ("basic", .single, "single"),
        "stack": ("matrioska", .cluster, "cluster"), "tab_bar": ("matrioska", .cluster, "cluster"),
        "navigation": ("matrioska", .wrapper, "wrapper"),
        "list": ("spots", .collection, "collection"), "grid": ("spots", .collection, "collection"),
        "carousel": ("spots", .collection, "collection"),
        "vstack": ("mortar", .cluster, "cluster"), "hstack": ("mortar", .cluster, "cluster"),
        "container": ("mortar", .cluster, "cluster"),
    ]
    static let rules = ["equals", "in", "not_in", "at_least", "below", "rollout", "between", "schedule"]

    /// The standard plugins from `dir`, loaded into a fresh engine.
    func loadStandard(_ dir: String) throws -> PluginEngine {
        let engine = try PluginEngine()
        let folders = try PluginDiscovery.folders(in: dir).get()
        XCTAssertEqual(folders.map(\.name), ["basic", "matrioska", "mortar", "spots", "targeting"], dir)
        engine.load(folders: folders, limits: .standard)
        return engine
    }

    func testStandardPluginsLoadAndRegisterEverything() throws {
        for dir in [PluginTestKit.standardPluginsDir, StandardPlugins.root] {
            let engine = try loadStandard(dir)
            XCTAssertTrue(engine.diagnostics.isEmpty, "\(dir): \(PluginTestKit.diagnosticsText(engine))")
            XCTAssertEqual(engine.plugins.map(\.info.name), ["basic", "matrioska", "mortar", "spots", "targeting"], dir)
            XCTAssertTrue(engine.plugins.allSatisfy(\.loaded), dir)
            XCTAssertEqual(Set(engine.factory.components.keys), Set(Self.components.keys), dir)
            XCTAssertEqual(Set(engine.factory.rules.keys), Set(Self.rules), dir)
            for (type, expected) in Self.components {
                let reg = engine.factory.components[type]
                XCTAssertEqual(reg?.plugin.name, expected.plugin, "\(dir): \(type)")
                XCTAssertEqual(reg?.kind, expected.kind, "\(dir): \(type)")
                XCTAssertNotNil(reg?.description, "\(dir): \(type) has a description for `host plugins`")
            }
            for rule in Self.rules {
                XCTAssertEqual(engine.factory.rules[rule]?.plugin.name, "targeting", "\(dir): \(rule)")
            }
            // The Matrioska alias.
            XCTAssertEqual(engine.factory.aliases["tabbar"], "tab_bar", dir)
            XCTAssertEqual(engine.factory.componentRegistration("tabbar")?.type, "tab_bar", dir)
            XCTAssertNil(engine.factory.componentRegistration("tab-bar"), dir)
            XCTAssertEqual(engine.factory.components["tab_bar"]?.childMeta != nil, true, "tab_bar declares child_meta")
            XCTAssertEqual(engine.factory.components["spots"] == nil, true)
            XCTAssertEqual(engine.factory.components["list"]?.itemView, "ListItem", dir)
            // Layout roles (docs/layout.md).
            let roles = Dictionary(uniqueKeysWithValues: engine.factory.components.map { ($0.key, $0.value.layoutAs ?? "-") })
            XCTAssertEqual(roles, ["label": "label", "button": "button", "image": "image", "view": "view", "stack": "stack",
                                   "tab_bar": "tab_bar", "navigation": "navigation", "list": "collection", "grid": "collection",
                                   "carousel": "collection", "vstack": "vstack", "hstack": "hstack", "container": "container"], dir)
            XCTAssertEqual(engine.factory.components["label"]?.openStyle, true, dir)
            XCTAssertEqual(engine.factory.components["label"]?.styleTypes?.map(\.key), ["background", "font", "lines", "padding", "text_color"], dir)
        }
    }

    func testRegistrationLocationsPointIntoThePluginFile() throws {
        for dir in [PluginTestKit.standardPluginsDir, StandardPlugins.root] {
            let engine = try loadStandard(dir)
            func expectedLine(_ plugin: String, _ call: String, _ name: String) -> Int? {
                let path = PluginTestKit.packageRoot + "/Plugins/\(plugin)/plugin.lua"
                let lines = (try? String(contentsOfFile: path, encoding: .utf8))?.components(separatedBy: "\n") ?? []
                return lines.firstIndex { $0.contains("host.\(call)(\"\(name)\"") }.map { $0 + 1 }
            }
            for (type, expected) in Self.components {
                let loc = engine.factory.components[type]?.location
                XCTAssertEqual(loc?.file, "\(dir)/\(expected.plugin)/plugin.lua", "\(dir): \(type)")
                XCTAssertEqual(loc?.line, expectedLine(expected.plugin, expected.call, type), "\(dir): \(type)")
            }
            for rule in Self.rules {
                let loc = engine.factory.rules[rule]?.location
                XCTAssertEqual(loc?.file, "\(dir)/targeting/plugin.lua", "\(dir): \(rule)")
                XCTAssertEqual(loc?.line, expectedLine("targeting", "rule", rule), "\(dir): \(rule)")
            }
        }
    }

    /// The copy embedded in the binary (scripts/embed-plugins) is exactly what is on disk:
    /// every .lua under Plugins/ outside scenarios/ and tests/.
    func testEmbeddedCopyMatchesPluginsOnDisk() throws {
        let root = PluginTestKit.packageRoot + "/Plugins"
        var onDisk: [String: String] = [:]
        let fm = FileManager.default
        let enumerator = try XCTUnwrap(fm.enumerator(atPath: root))
        while let rel = enumerator.nextObject() as? String {
            let parts = rel.split(separator: "/")
            if parts.contains(where: { $0 == "scenarios" || $0 == "tests" || $0.hasPrefix(".") }) { continue }
            guard rel.hasSuffix(".lua") else { continue }
            onDisk[StandardPlugins.root + "/" + rel] = try String(contentsOfFile: root + "/" + rel, encoding: .utf8)
        }
        XCTAssertGreaterThanOrEqual(onDisk.count, 7)
        XCTAssertEqual(Set(StandardPlugins.virtualFiles.keys), Set(onDisk.keys), "run scripts/embed-plugins")
        for (key, text) in onDisk {
            XCTAssertEqual(StandardPlugins.virtualFiles[key], text, "\(key) differs from the embedded copy: run scripts/embed-plugins")
        }
    }

    // MARK: require, log, print

    /// Writes plugin folders under a fresh temporary directory: [folder: [relative path: text]].
    func makePlugins(_ files: [String: [String: String]]) throws -> String {
        let dir = NSTemporaryDirectory() + "loom-plt-" + String(UUID().uuidString.prefix(8))
        for (folder, contents) in files {
            for (rel, text) in contents {
                let path = dir + "/" + folder + "/" + rel
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func plugin(_ name: String, body: String = "", register: String = "") -> String {
        """
        \(body)
        return { name = "\(name)", version = "1.0.0", api = 1, register = function(host)
        \(register)
        end }
        """
    }

    func testRequireLoadsSiblingFilesOnly() throws {
        let dir = try makePlugins([
            "uses_lib": [
                "plugin.lua": plugin("uses_lib", body: "local util = require 'lib.util'\nlocal again = require 'lib.util'\nassert(util == again)",
                                     register: "host.rule('lib_answer', function() return util.answer() == 42 end)"),
                "lib/util.lua": "local helper = require 'lib.helper'\nreturn { answer = function() return helper * 2 end }",
                "lib/helper.lua": "return 21",
            ],
            "escapes": ["plugin.lua": "\nlocal x = require '../uses_lib/lib/util'\n" + plugin("escapes")],
            "absent": ["plugin.lua": "\n\nlocal x = require 'nowhere'\n" + plugin("absent")],
            "neighbour": ["plugin.lua": "local x = require 'lib.util'\n" + plugin("neighbour")],
            "broken_module": [
                "plugin.lua": "local x = require 'bad'\n" + plugin("broken_module"),
                "bad.lua": "local a = 1\nlocal = 2\n",
            ],
        ])
        let engine = try PluginEngine()
        engine.load(folders: try PluginDiscovery.folders(in: dir).get(), limits: .standard)
        let text = PluginTestKit.diagnosticsText(engine)
        PluginTestKit.assertRule(engine, "lib_answer", is: true, "a module required from the plugin's folder (and its own require) works")
        XCTAssertEqual(engine.plugins.first { $0.info.name == "uses_lib" }?.loaded, true)

        func diagnostic(_ plugin: String) -> Diagnostic? {
            engine.diagnostics.items.first { $0.message.hasPrefix("plugin \(plugin) (") }
        }
        let escapes = diagnostic("escapes")
        XCTAssertEqual(escapes?.location, SourceLocation(file: dir + "/escapes/plugin.lua", line: 2, column: 0), text)
        XCTAssertTrue(escapes?.message.contains("require: module name '../uses_lib/lib/util' is not a plain module name") ?? false, text)
        let absent = diagnostic("absent")
        XCTAssertEqual(absent?.location, SourceLocation(file: dir + "/absent/plugin.lua", line: 3, column: 0), text)
        XCTAssertTrue(absent?.message.contains("module 'nowhere' not found in the plugin's folder (plugins may require only their own files)") ?? false, text)
        let neighbour = diagnostic("neighbour")
        XCTAssertTrue(neighbour?.message.contains("module 'lib.util' not found in the plugin's folder") ?? false, "another plugin's files are out of reach: \(text)")
        let broken = diagnostic("broken_module")
        XCTAssertEqual(broken?.location, SourceLocation(file: dir + "/broken_module/bad.lua", line: 2, column: 0), "a syntax error in a module points into the module: \(text)")
        XCTAssertEqual(engine.diagnostics.count, 4, text)
    }

    func testPrintAndHostLogAreCapturedAndCapped() throws {
        let dir = try makePlugins([
            "chatty": ["plugin.lua": plugin("chatty", body: "print('loading', 1, true, nil)",
                                             register: "host.log('registering')\nhost.rule('chatty_rule', function() print('evaluated') return true end)")],
            "flood_print": ["plugin.lua": plugin("flood_print", body: "for i = 1, 5000 do print(('p'):rep(100)) end")],
            "flood_log": ["plugin.lua": plugin("flood_log", register: "for i = 1, 5000 do host.log(('l'):rep(100)) end")],
            "quiet": ["plugin.lua": plugin("quiet", register: "print('after the floods')")],
        ])
        let engine = try PluginEngine()
        engine.load(folders: try PluginDiscovery.folders(in: dir).get(), limits: .standard)
        XCTAssertTrue(engine.diagnostics.isEmpty, PluginTestKit.diagnosticsText(engine))
        let lines = { (plugin: String) in engine.log.filter { $0.0 == plugin }.map(\.1) }
        XCTAssertEqual(lines("chatty"), ["loading\t1\ttrue\tnil", "registering"])
        PluginTestKit.assertRule(engine, "chatty_rule", is: true)
        XCTAssertEqual(lines("chatty").last, "evaluated", "print works in rules too")
        for flood in ["flood_print", "flood_log"] {
            let bytes = lines(flood).map(\.utf8.count).reduce(0, +)
            XCTAssertGreaterThan(bytes, 32 * 1024, "\(flood): the log keeps a good part")
            XCTAssertLessThanOrEqual(bytes, 64 * 1024 + 64, "\(flood): capped per plugin (500 KB were written)")
            XCTAssertTrue(lines(flood).last?.hasSuffix("(log capped)") ?? false, "\(flood): the cut is marked")
        }
        XCTAssertEqual(lines("quiet"), ["after the floods"], "one plugin's flood does not silence another")
    }
}
