import Foundation
import XCTest

/// A top-level "$schema" key is accepted and ignored in loom.json, users.json (not a
/// profile), flows.json and screens.
final class SchemaKeyTests: XCTestCase {
    func testSchemaKeyIsIgnoredEverywhere() throws {
        let dir = try Host.temporaryFolder("schema-key")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "loom.json": #"{"$schema": "https://loom.dev/schema/loom.schema.json", "entry": "main"}"#,
            "users.json": #"{"$schema": "https://loom.dev/schema/users.schema.json", "anyone": {"id": "1"}}"#,
            "flows.json": #"{"$schema": "https://loom.dev/schema/flows.schema.json", "flows": {"main": {"start": "home"}}}"#,
            "screens/home.json": #"{"$schema": "../screen.schema.json", "screen": "home", "root": {"type": "label", "id": "a", "meta": {"text": "A"}}}"#,
            "screens/spots.json": #"{"$schema": "../screen.schema.json", "components": [{"kind": "label", "meta": {"text": "B"}}]}"#,
        ], under: dir)
        let check = try Host.run(["check", "--project", dir.path])
        assertExit(check, 0)
        assertLacks(check.stderr, "$schema", in: check, "no warning about $schema")
        // "$schema" is not a profile.
        let r = try Host.run(["run", "home", "--project", dir.path, "--user", "$schema"])
        assertExit(r, 1)
        assertContains(r.stderr, "unknown user '$schema'", in: r, "stderr")
        assertContains(r.stderr, "known profiles: 'anyone'", in: r, "stderr")
    }

    func testANonStringSchemaKeyInUsersIsAnError() throws {
        let dir = try Host.temporaryFolder("schema-key-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "users.json": "{\n  \"$schema\": {\"id\": \"1\"}\n}",
            "screens/home.json": #"{"screen": "home", "root": {"type": "label", "id": "a"}}"#,
        ], under: dir)
        let check = try Host.run(["check", "--project", dir.path])
        assertExit(check, 1)
        assertContains(check.stderr, "users.json:2:14: error: \"$schema\" names the file's JSON Schema (a string), found an object", in: check, "stderr")
    }
}
