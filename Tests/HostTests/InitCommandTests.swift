import Foundation
import XCTest

/// `host init`: a new project that passes `host check` and `host test` as created.
final class InitCommandTests: XCTestCase {
    func testNewProjectPassesCheckAndTest() throws {
        let dir = try Host.temporaryFolder("init")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Host.run(["init", "demo"], directory: dir)
        assertExit(r, 0)
        assertContains(r.stdout, "created demo/loom.json", in: r, "stdout")
        assertContains(r.stdout, "next: cd demo && host check && host test", in: r, "stdout")
        let project = dir.appendingPathComponent("demo")
        for f in ["loom.json", "screens/home.json", "users.json", "flows.json", ".luarc.json", ".loom/loom.d.lua",
                  "plugins/demo/plugin.lua", "plugins/demo/README.md", "plugins/demo/scenarios/demo.lua",
                  ".loom/schema/screen.schema.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: project.appendingPathComponent(f).path), "init did not write \(f)")
        }
        let luarc = try String(contentsOf: project.appendingPathComponent(".luarc.json"), encoding: .utf8)
        XCTAssertTrue(luarc.contains(#""library": [".loom"]"#), luarc)

        let check = try Host.run(["check"], directory: project)
        assertExit(check, 0)
        // A new project is clean on every profile and device: its content inside the safe area,
        // its button a full tap target (issue 37's matrix).
        XCTAssertEqual(check.stderr, "", "a new project has no warnings\n\(check.transcript)")
        assertContains(check.stdout, "0 errors, 0 warnings", in: check, "stdout")

        let test = try Host.run(["test"], environment: ["CI": "true"], directory: project)
        assertExit(test, 0)
        assertContains(test.stdout, "members see the members-only label", in: test, "stdout")
        assertContains(test.stdout, "greeting greets by name", in: test, "stdout")
        XCTAssertFalse(test.stdout.contains("✗"), test.transcript)

        let run = try Host.run(["run", "home", "--user", "member", "--no-graph"], directory: project)
        assertExit(run, 0)
        assertContains(run.stdout, "Hello, world", in: run, "stdout")

        // A second init into the same (now non-empty) folder is refused, and changes nothing.
        let again = try Host.run(["init", "demo"], directory: dir)
        assertExit(again, 1)
        assertContains(again.stderr, "demo: error: the folder is not empty", in: again, "stderr")
        assertContains(again.stderr, "--force", in: again, "stderr")
        XCTAssertEqual(again.stdout, "", again.transcript)

        // --force writes it again.
        let forced = try Host.run(["init", "demo", "--force"], directory: dir)
        assertExit(forced, 0)
    }

    func testInitIntoAFileFails() throws {
        let dir = try Host.temporaryFolder("init-file")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("x".utf8).write(to: dir.appendingPathComponent("f"))
        let r = try Host.run(["init", "f"], directory: dir)
        assertExit(r, 1)
        assertContains(r.stderr, "f: error: exists and is not a folder", in: r, "stderr")
    }

    func testPluginNameComesFromTheFolder() throws {
        let dir = try Host.temporaryFolder("init-name")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Host.run(["init", "My App"], directory: dir)
        assertExit(r, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("My App/plugins/my_app/plugin.lua").path), r.transcript)
        let check = try Host.run(["check", "--project", "My App"], directory: dir)
        assertExit(check, 0)
    }
}
