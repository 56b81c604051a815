import Foundation
import XCTest

/// `host run --cache-key`: Spots' view-state cache — hits print exactly what the miss printed,
/// any input change misses, unusable files are ignored with a warning and rewritten.
final class RunCacheTests: XCTestCase {
    private func sampleCopy() throws -> URL {
        let dest = try Host.temporaryFolder("cache").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: dest)
        return dest
    }

    func testSecondRunIsServedFromTheCacheByteForByte() throws {
        let p = try sampleCopy()
        let home = p.appendingPathComponent("screens/home.json").path
        for format in ["text", "json"] {
            let first = try Host.run(["run", home, "--user", "gold", "--cache-key", "home-gold", "--format", format, "--explain"])
            assertExit(first, 0)
            // One entry holds both formats: only the first run resolves.
            assertContains(first.stderr, format == "text" ? "view-state cache miss for key 'home-gold'" : "served from the view-state cache", in: first)
            let second = try Host.run(["run", home, "--user", "gold", "--cache-key", "home-gold", "--format", format, "--explain"])
            assertExit(second, 0)
            assertContains(second.stderr, "served from the view-state cache: key 'home-gold'", in: second)
            XCTAssertEqual(first.stdout, second.stdout, "format \(format)")
        }
        // Without the cache, the same output.
        let plain = try Host.run(["run", home, "--user", "gold", "--format", "json", "--explain"])
        let cached = try Host.run(["run", home, "--user", "gold", "--format", "json", "--explain", "--cache-key", "home-gold"])
        XCTAssertEqual(plain.stdout, cached.stdout)
        let list = try Host.run(["cache", "list", "--project", p.path])
        assertContains(list.stdout, "home-gold  home", in: list)
    }

    func testAChangedAttributeARuleReadsMisses() throws {
        let p = try sampleCopy()
        let home = p.appendingPathComponent("screens/home.json").path
        let args = ["run", home, "--user", "gold", "--cache-key", "k", "--explain"]
        assertExit(try Host.run(args), 0)
        assertContains(try Host.run(args).stderr, "served from the view-state cache", in: try Host.run(args))
        // gold's churn score is read by is_churn_risk: the premium tab now hides.
        let users = p.appendingPathComponent("users.json")
        let text = try String(contentsOf: users, encoding: .utf8)
        XCTAssertTrue(text.contains("\"churn_score\": 0.1"), "the sample users changed; update this test")
        try text.replacingOccurrences(of: "\"churn_score\": 0.1", with: "\"churn_score\": 0.9").write(to: users, atomically: true, encoding: .utf8)
        let after = try Host.run(args)
        assertContains(after.stderr, "view-state cache miss", in: after)
        assertContains(after.stdout, "premium_tab", in: after)
        // A --context override is an input too.
        let ctx = try Host.run(args + ["--context", "churn_score=0.1"])
        assertContains(ctx.stderr, "view-state cache miss", in: ctx)
        // So is clients.json: a client that cannot render the home screen's root gets nothing.
        assertExit(try Host.run(args), 0)
        let primed = try Host.run(args)
        assertContains(primed.stderr, "served from the view-state cache", in: primed)
        try #"{"version_attribute": "app_version", "clients": [{"versions": "*", "components": []}]}"#
            .write(to: p.appendingPathComponent("clients.json"), atomically: true, encoding: .utf8)
        let clients = try Host.run(args)
        assertContains(clients.stderr, "view-state cache miss", in: clients)
        assertContains(clients.stderr, "cannot render", in: clients)
    }

    func testTruncatedCacheFileIsIgnoredWithAWarningAndRewritten() throws {
        let p = try sampleCopy()
        let home = p.appendingPathComponent("screens/home.json").path
        let args = ["run", home, "--user", "free", "--cache-key", "home-free"]
        let first = try Host.run(args)
        let file = p.appendingPathComponent(".loom/cache/home-free.json")
        let data = try Data(contentsOf: file)
        try data.prefix(data.count / 3).write(to: file)
        let broken = try Host.run(args)
        assertExit(broken, 0)
        assertContains(broken.stderr, "home-free.json:", in: broken)
        assertContains(broken.stderr, "warning: ignoring the cache file", in: broken)
        XCTAssertEqual(broken.stdout, first.stdout)
        let served = try Host.run(args)
        XCTAssertEqual(served.stdout, first.stdout)
        XCTAssertFalse(served.stderr.contains("warning"), served.transcript)
        try Data("[1, 2, 3]".utf8).write(to: file)
        let foreign = try Host.run(args)
        assertContains(foreign.stderr, "not a Loom view-state cache entry", in: foreign)
    }

    func testBadKeysAndClear() throws {
        let bad = try Host.run(["run", Host.homeScreen, "--cache-key", "../escape"])
        assertExit(bad, 64)
        assertContains(bad.stderr, "a cache key is", in: bad)
        let dirOnly = try Host.run(["run", Host.homeScreen, "--cache-dir", "/tmp/x"])
        assertExit(dirOnly, 64)
        let p = try sampleCopy()
        let dir = p.appendingPathComponent("elsewhere").path
        assertExit(try Host.run(["run", p.appendingPathComponent("screens/home.json").path, "--cache-key", "a", "--cache-dir", dir]), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/a.json"))
        let missing = try Host.run(["cache", "clear", "zzz", "--cache-dir", dir])
        assertExit(missing, 1)
        let clear = try Host.run(["cache", "clear", "--cache-dir", dir])
        assertContains(clear.stdout, "removed 1 entry", in: clear)
    }
}
