import Foundation
import LoomCore
import LoomPlugins
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
