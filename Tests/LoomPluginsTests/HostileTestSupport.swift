import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

/// Shared by the hostile-corpus, plugin-loading and targeting tests.
enum PluginTestKit {
    /// The package root (this file is Tests/LoomPluginsTests/HostileTestSupport.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A path as the host shows it: relative to the working directory when below it.
    static func display(_ relative: String) -> String {
        PluginDiscovery.displayPath(packageRoot + "/" + relative)
    }

    static var standardPluginsDir: String { display("Plugins") }
    static var hostileDir: String { display("Tests/Fixtures/hostile") }

    /// A project in a temporary folder, removed when `test` ends: one plugin `t` (`prelude`, then
    /// a plugin table whose `register(host)` runs `register`), `screens/s.json`, `users.json` and
    /// an empty `loom.json`.
    static func writeProject(for test: XCTestCase, name: String, prelude: String = "", register: String,
                             screen: String, users: String) throws -> URL {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("loom-\(name)-\(UUID().uuidString)")
        try fm.createDirectory(at: dir.appendingPathComponent("plugins/t"), withIntermediateDirectories: true)
        try fm.createDirectory(at: dir.appendingPathComponent("screens"), withIntermediateDirectories: true)
        test.addTeardownBlock { try? fm.removeItem(at: dir) }
        let plugin = prelude + "return { name = \"t\", version = \"1.0.0\", api = 1, register = function(host)\n\(register)\nend }\n"
        try Data(plugin.utf8).write(to: dir.appendingPathComponent("plugins/t/plugin.lua"))
        try Data(screen.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        try Data(users.utf8).write(to: dir.appendingPathComponent("users.json"))
        try Data("{}".utf8).write(to: dir.appendingPathComponent("loom.json"))
        return dir
    }

    /// The project's workspace (with the standard plugins) and its `screens/s.json`, parsed and
    /// checked; a load error fails the test.
    static func openScreen(project: String, file: StaticString = #filePath, line: UInt = #line) throws -> (ws: Workspace, screen: Screen, check: ScreenCheck) {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = project
        o.standardPlugins = packageRoot + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items.map(\.description))", file: file, line: line)
        let loaded = ws.screen(file: project + "/screens/s.json")
        let screen = try XCTUnwrap(loaded.screen, "\(loaded.diagnostics.items)", file: file, line: line)
        return (ws, screen, try XCTUnwrap(loaded.check, file: file, line: line))
    }

    static func json(_ text: String, file: String = "t.json") throws -> JSONNode {
        try JSONReader.parse(Array(text.utf8), file: file).root
    }

    static func user(_ attributes: [String: JSONValue], name: String? = nil) -> UserProfile {
        var u = UserProfile(name: name, attributes: [:])
        for (k, v) in attributes.sorted(by: { $0.key < $1.key }) { u.attributes[k] = v }
        return u
    }

    /// A one-component screen whose root is `type`, to give rules a subject.
    static func subject(type: String = "good_badge") throws -> Component {
        let doc = try JSONReader.parse(Array(#"{"screen": "s", "root": {"type": "\#(type)", "id": "subject", "meta": {"text": "hi"}}}"#.utf8), file: "s.json")
        let (screen, d) = ScreenParser.parse(doc, defaultID: "s")
        guard let screen else { throw NSError(domain: "PluginTestKit", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(d)"]) }
        return screen.root
    }

    nonisolated(unsafe) private static var nextLine = 0

    /// Evaluates a registered rule the way the resolver does, with its own argument location.
    static func evaluate(
        _ engine: PluginEngine, _ rule: String, args: String? = nil, user: UserProfile = UserProfile(name: nil, attributes: [:]),
        subject: Component? = nil
    ) throws -> Result<Bool, BuildFailure> {
        guard let reg = engine.factory.rules[rule] else {
            throw NSError(domain: "PluginTestKit", code: 2, userInfo: [NSLocalizedDescriptionKey: "rule '\(rule)' is not registered"])
        }
        nextLine += 1
        let node = try args.map { try json($0, file: "args.json") }
        let subj = try subject ?? self.subject()
        let ctx = ResolutionContext(user: user, screenID: "s")
        return reg.evaluator.evaluate(args: node, at: SourceLocation(file: "args.json", line: nextLine, column: 1), subject: .component(subj), context: ctx)
    }

    /// `rule` must evaluate to `expected`.
    static func assertRule(
        _ engine: PluginEngine, _ rule: String, args: String? = nil, user: UserProfile = UserProfile(name: nil, attributes: [:]),
        is expected: Bool, _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            switch try evaluate(engine, rule, args: args, user: user) {
            case .success(let v): XCTAssertEqual(v, expected, "\(rule) \(args ?? "") for \(user.attributes): \(message)", file: file, line: line)
            case .failure(let f): XCTFail("\(rule) \(args ?? "") failed: \(f.message) \(message)", file: file, line: line)
            }
        } catch {
            XCTFail("\(error) \(message)", file: file, line: line)
        }
    }

    static func diagnosticsText(_ engine: PluginEngine) -> String {
        engine.diagnostics.items.map(\.description).joined(separator: "\n")
    }

    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        return (r, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
