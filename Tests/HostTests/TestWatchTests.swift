import Foundation
import XCTest

/// `host test --watch`: the whole suite first, then only the scenario files a save can affect.
final class TestWatchTests: XCTestCase {
    func testRerunsOnlyWhatAChangeCanAffect() throws {
        let project = try Host.temporaryFolder("test-watch").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        // Run from inside the project, as a user would.
        let w = try WatchCommandTests.Running(["test", "--watch", "--project", project.path, "--jobs", "1"])
        defer { _ = w.stop() }
        XCTAssertNotNil(w.wait(for: "Ctrl-C stops", inStderr: true, timeout: 120), w.transcript)
        XCTAssertTrue(w.stdout.contains(" passed, 0 failed"), w.transcript)
        // A scenario file: only that file.
        let nav = project.appendingPathComponent("scenarios/navigation.lua")
        try (try String(contentsOf: nav, encoding: .utf8) + "\n-- edited\n").write(to: nav, atomically: false, encoding: .utf8)
        XCTAssertNotNil(w.wait(for: "rerunning 1 scenario file\n"), w.transcript)
        // The settings screen: only the scenario files that opened it (not all of them).
        let settings = project.appendingPathComponent("screens/settings.json")
        try (try String(contentsOf: settings, encoding: .utf8) + "\n").write(to: settings, atomically: false, encoding: .utf8)
        XCTAssertNotNil(w.wait(for: "--- changed: ", count: 2), w.transcript)
        XCTAssertNotNil(w.wait(for: " passed, ", count: 3), w.transcript)
        // users.json: everything.
        let users = project.appendingPathComponent("users.json")
        try (try String(contentsOf: users, encoding: .utf8) + "\n").write(to: users, atomically: false, encoding: .utf8)
        XCTAssertNotNil(w.wait(for: "rerunning every scenario"), w.transcript)
        XCTAssertNotNil(w.wait(for: " passed, ", count: 4), w.transcript)
        XCTAssertEqual(w.stop(), 0, w.transcript)
        XCTAssertTrue(w.stdout.hasSuffix("stopped\n"), w.transcript)
    }

    func testAffectedSelection() throws {
        let r = try Host.run(["test", "--watch", "--update"])
        assertExit(r, 64)
    }
}
