import Foundation
import XCTest

/// `host schema`: the embedded schemas are docs/schema's, byte for byte; `--with-plugins`
/// describes the registered components' meta and still validates the sample app's screens.
final class SchemaCommandTests: XCTestCase {
    func testEachSchemaIsTheDocsCopyByteForByte() throws {
        for kind in ["screen", "users", "clients", "flows", "loom", "journeys", "rules", "style", "strings", "coverage"] {
            let r = try Host.run(["schema", kind])
            assertExit(r, 0)
            let docs = try Data(contentsOf: Host.repoRoot.appendingPathComponent("docs/schema/\(kind).schema.json"))
            XCTAssertEqual(r.stdoutData, docs, "the binary's \(kind) schema differs from docs/schema/\(kind).schema.json: run scripts/embed-resources\n\(r.transcript.prefix(500))")
        }
        let d = try Host.run(["schema"])
        assertExit(d, 0)
        XCTAssertEqual(d.stdoutData, try Data(contentsOf: Host.repoRoot.appendingPathComponent("docs/schema/screen.schema.json")), "the default kind is screen")
    }

    func testEmbeddedLuaDefinitionsAreCurrent() throws {
        let dir = try Host.temporaryFolder("embedded-lua")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Host.run(["init", dir.appendingPathComponent("p").path])
        assertExit(r, 0)
        let written = try Data(contentsOf: dir.appendingPathComponent("p/.loom/loom.d.lua"))
        let docs = try Data(contentsOf: Host.repoRoot.appendingPathComponent("docs/lua/loom.d.lua"))
        XCTAssertEqual(written, docs, "the binary's loom.d.lua differs from docs/lua/loom.d.lua: run scripts/embed-resources")
    }

    func testBadKindAndWithPluginsOnOtherKindsAreUsageErrors() throws {
        let r = try Host.run(["schema", "screens"])
        assertExit(r, 64)
        let w = try Host.run(["schema", "users", "--with-plugins"])
        assertExit(w, 64)
        assertContains(w.stderr, "--with-plugins extends the screen schema only", in: w, "stderr")
    }

    func testWithPluginsDescribesTheStandardComponentsMeta() throws {
        let r = try Host.run(["schema", "screen", "--with-plugins", "--project", Host.moviesProject])
        assertExit(r, 0)
        XCTAssertEqual(r.stderr, "", r.transcript)
        let root = try r.jsonObject()
        XCTAssertEqual(root["$schema"] as? String, "https://json-schema.org/draft/2020-12/schema")
        let defs = try XCTUnwrap(root["$defs"] as? [String: Any], r.transcript)
        let label = try XCTUnwrap(defs["meta_label"] as? [String: Any], "no $defs.meta_label")
        let props = try XCTUnwrap(label["properties"] as? [String: Any], "meta_label has no properties")
        let text = try XCTUnwrap(props["text"] as? [String: Any], "label's meta has no 'text'")
        XCTAssertNotNil(text["anyOf"] ?? text["type"], "label's text is typed: \(text)")
        let component = try XCTUnwrap(defs["component"] as? [String: Any])
        let byType = try XCTUnwrap(component["allOf"] as? [[String: Any]])
        XCTAssertTrue(byType.contains { "\($0)".contains("meta_label") }, "component refers to meta_label")
        // The sample app's own plugin registers rules; registered rules with argument schemas appear.
        let rule = try XCTUnwrap(defs["rule"] as? [String: Any])
        XCTAssertTrue("\(rule)".contains("equals"), "the targeting rules' arguments are described: \(String("\(rule)".prefix(400)))")
    }

    /// check-jsonschema (pip) validates the sample app's screens against the extended schema.
    func testWithPluginsValidatesTheSampleScreens() throws {
        let r = try Host.run(["schema", "screen", "--with-plugins", "--project", Host.moviesProject])
        assertExit(r, 0)
        guard let checker = try Self.checkJSONSchema() else {
            throw XCTSkip("check-jsonschema is not installed and pip could not install it")
        }
        let dir = try Host.temporaryFolder("schema")
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = dir.appendingPathComponent("screen.schema.json")
        try r.stdoutData.write(to: schema)
        let screens = try FileManager.default.contentsOfDirectory(atPath: Host.repoRoot.appendingPathComponent("docs/examples/movies/screens").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "docs/examples/movies/screens/" + $0 }
        XCTAssertFalse(screens.isEmpty)
        let v = try Host.runExecutable(checker, ["--schemafile", schema.path] + screens)
        XCTAssertEqual(v.status, 0, "the sample screens do not validate:\n\(v.stdout)\n\(v.stderr)")
        // And a wrong meta type is rejected (label's text must be a string or a localized string).
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"screen": "bad", "root": {"type": "label", "id": "x", "meta": {"text": 42}}}"#.utf8).write(to: bad)
        let b = try Host.runExecutable(checker, ["--schemafile", schema.path, bad.path])
        XCTAssertNotEqual(b.status, 0, "a label whose text is a number validates:\n\(b.stdout)")
    }

    /// check-jsonschema on PATH (or ~/.local/bin), installing it with pip when missing; nil when impossible.
    static func checkJSONSchema() throws -> URL? {
        let local = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/bin/check-jsonschema")
        if let found = Host.which("check-jsonschema") { return found }
        if FileManager.default.isExecutableFile(atPath: local.path) { return local }
        guard let python = Host.which("python3") else { return nil }
        for extra in [[], ["--break-system-packages"]] {
            _ = try? Host.runExecutable(python, ["-m", "pip", "install", "--user", "--quiet", "check-jsonschema"] + extra, timeout: 300)
            if let found = Host.which("check-jsonschema") { return found }
            if FileManager.default.isExecutableFile(atPath: local.path) { return local }
        }
        return nil
    }
}
