import Foundation
import XCTest

/// `host test --coverage`, `--coverage-json`, `--min-coverage`, `--lcov` on the fixture project
/// Tests/Fixtures/coverage (two scenario files: a gold user walks home → detail → back; a free
/// user opens home, where the `fragile` rule fails) and on the sample app.
final class CoverageTests: XCTestCase {
    static let fixture = Host.repoRoot.appendingPathComponent("Tests/Fixtures/coverage")
    static let golden = fixture.appendingPathComponent("expected/coverage.json")

    func temporary() throws -> URL {
        let dir = try Host.temporaryFolder("coverage")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// Runs `host test ARGS` in the fixture folder (so paths are relative to it).
    func runFixture(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> HostResult {
        try Host.run(["test"] + args, directory: Self.fixture, file: file, line: line)
    }

    func json(_ url: URL) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func testExactCountsOnTheFixture() throws {
        let out = try temporary().appendingPathComponent("cov.json")
        let r = try runFixture(["--coverage-json", out.path, "--jobs", "1"])
        assertExit(r, 0)
        let c = try json(out)
        let rules = try XCTUnwrap(c["rules"] as? [[String: Any]])
        func rule(_ location: String) -> [String: Any] { rules.first { $0["location"] as? String == location } ?? [:] }
        func counts(_ location: String) -> [Int] {
            let x = rule(location)
            return ["true", "false", "errored", "skipped"].map { x[$0] as? Int ?? -1 }
        }
        XCTAssertEqual(rules.count, 15)
        XCTAssertEqual(counts("screens/home.json:2:48"), [1, 1, 0, 0], "is_gold on gold_only: gold true, free false")
        XCTAssertEqual(counts("screens/home.json:3:46"), [1, 1, 0, 0], "OR(is_gold, is_staff)")
        XCTAssertEqual(counts("screens/home.json:3:64"), [0, 1, 0, 1], "is_staff in the OR: skipped for gold")
        XCTAssertEqual(counts("screens/home.json:4:44"), [1, 0, 1, 0], "fragile fails for free")
        XCTAssertEqual(counts("screens/home.json:5:44"), [0, 2, 0, 0], "vault's is_staff")
        XCTAssertEqual(counts("screens/home.json:6:47"), [0, 0, 0, 0], "inside the hidden vault: never reached")
        XCTAssertEqual(counts("screens/home.json:10:63"), [1, 1, 0, 0], "is_gold on the list's header")
        XCTAssertEqual(counts("screens/home.json:13:40"), [1, 1, 0, 0], "NOT(is_gold) on item B")
        XCTAssertEqual(counts("screens/detail.json:2:43"), [0, 1, 0, 0], "only gold went to detail")
        XCTAssertEqual(counts("screens/never.json:2:45"), [0, 0, 0, 0], "a screen no scenario opens")
        XCTAssertEqual(counts("loom.json:1:67"), [0, 0, 0, 0], "a named rule no screen uses")
        XCTAssertEqual(rule("loom.json:1:67")["screen"] as? String, "named:gold_or_staff")
        XCTAssertEqual(rule("screens/home.json:3:46")["rule"] as? String, "OR(is_gold, is_staff)")
        XCTAssertEqual(rule("screens/home.json:3:46")["name"] as? String, "OR")

        let names = try XCTUnwrap(c["rule_names"] as? [[String: Any]])
        let staff = try XCTUnwrap(names.first { $0["name"] as? String == "is_staff" })
        XCTAssertEqual(staff["sites"] as? Int, 4)
        XCTAssertEqual(staff["false"] as? Int, 4)
        XCTAssertEqual(staff["skipped"] as? Int, 1)
        XCTAssertEqual(names.map { $0["name"] as? String ?? "" }, ["NOT", "OR", "fragile", "is_gold", "is_staff", "unused"])

        let summary = try XCTUnwrap(c["summary"] as? [String: [String: Any]])
        XCTAssertEqual(summary["rule_outcomes"]?["covered"] as? Int, 16)
        XCTAssertEqual(summary["rule_outcomes"]?["total"] as? Int, 30)
        XCTAssertEqual(summary["rule_outcomes"]?["percent"] as? Double, 53.3)
        XCTAssertEqual(summary["edges"]?["taken"] as? Int, 1)
        XCTAssertEqual(summary["edges"]?["total"] as? Int, 2)

        let nodes = try XCTUnwrap(c["components"] as? [[String: Any]])
        func node(_ id: String) -> [Int] {
            let n = nodes.first { $0["id"] as? String == id } ?? [:]
            return [n["shown"] as? Int ?? -1, n["hidden"] as? Int ?? -1]
        }
        XCTAssertEqual(node("gold_only"), [1, 1])
        XCTAssertEqual(node("vault"), [0, 2])
        XCTAssertEqual(node("secret"), [0, 0])
        XCTAssertEqual(node("b"), [1, 1])
        XCTAssertEqual(node("things_header"), [1, 1], "a collection's header is a component of its own")
        XCTAssertEqual(node("nobody"), [0, 0])
        XCTAssertEqual(nodes.first { $0["id"] as? String == "b" }?["kind"] as? String, "item")

        let screens = try XCTUnwrap(c["screens"] as? [[String: Any]])
        XCTAssertEqual(screens.map { "\($0["id"]!)=\($0["opened"]!)" }, ["detail=1", "home=2", "never=0"])
        let edges = try XCTUnwrap(c["edges"] as? [[String: Any]])
        let taken = try XCTUnwrap(edges.first { $0["screen"] as? String == "home" && $0["step"] as? String == "detail" })
        XCTAssertEqual(taken["offered"] as? Int, 2)
        XCTAssertEqual(taken["taken"] as? Int, 1)
        XCTAssertEqual(taken["targets"] as? [String: Int], ["detail": 1])
        let back = try XCTUnwrap(edges.first { $0["step"] as? String == "back" })
        XCTAssertEqual(back["screen"] as? String, "detail")
        XCTAssertEqual(back["declared"] as? Bool, false)
        let profiles = try XCTUnwrap(c["profiles"] as? [[String: Any]])
        XCTAssertEqual(profiles.map { "\($0["name"]!)=\($0["sessions"]!)" }, ["free=1", "gold=1", "staff=0"])
        XCTAssertEqual(c["anonymous_sessions"] as? Int, 0)

        // The whole file, byte for byte (also the instance scripts/check-schemas validates
        // against docs/schema/coverage.schema.json).
        let written = try String(contentsOf: out, encoding: .utf8)
        let golden = try String(contentsOf: Self.golden, encoding: .utf8)
        if written != golden {
            XCTFail("the coverage JSON differs from \(Self.golden.path); if the change is intended, replace that file with \(out.path):\n\(written)")
        }
    }

    func testTableAfterTheResults() throws {
        let r = try runFixture(["--coverage"])
        assertExit(r, 0)
        let out = r.stdout
        let results = try XCTUnwrap(out.range(of: "✓ gold walks to detail and back"))
        let table = try XCTUnwrap(out.range(of: "\ncoverage\n"))
        let summary = try XCTUnwrap(out.range(of: "2 passed, 0 failed"))
        XCTAssertLessThan(results.lowerBound, table.lowerBound)
        XCTAssertLessThan(table.lowerBound, summary.lowerBound)
        assertContains(out, "rule outcomes 16/30 (53.3%), components shown 12/17 (70.5%), screens opened 2/3 (66.6%), edges taken 1/2 (50.0%), profiles used 2/3 (66.6%)", in: r)
        assertMatches(out, #"screens/home\.json:4:44 +1 +0 +1 +0 fragile"#, in: r)
        assertMatches(out, #"screens/never\.json:2:45 +0 +0 +0 +0 unused"#, in: r)
        assertMatches(out, #"home +2 +1 detail → detail ×1"#, in: r)
        assertMatches(out, #"staff +0 users\.json"#, in: r)
        // Without the flag, nothing of it.
        let plain = try runFixture([])
        assertExit(plain, 0)
        assertLacks(plain.stdout, "coverage", in: plain)
    }

    func testMinimumCoverage() throws {
        let pass = try runFixture(["--min-coverage", "50"])
        assertExit(pass, 0)
        let fail = try runFixture(["--min-coverage", "70"])
        assertExit(fail, 1)
        let last = fail.stdoutLines.filter { !$0.isEmpty }.last ?? ""
        XCTAssertEqual(last, "✗ coverage: 53.3% of rule outcomes seen (16 of 30) is below --min-coverage 70%", fail.transcript)
        XCTAssertTrue(fail.stdout.contains("2 passed, 0 failed"), fail.transcript)
        // 16 of 30 is 53.33%: 53.4 fails, 53.3 passes.
        assertExit(try runFixture(["--min-coverage", "53.4"]), 1)
        assertExit(try runFixture(["--min-coverage", "53.3"]), 0)
    }

    func testBadFlagsAreUsageErrors() throws {
        for (value, shown) in [("120", "'120'"), ("-1", "'-1'"), ("lots", "'lots'"), ("nan", "'nan'")] {
            let r = try runFixture(["--min-coverage=\(value)"])
            assertExit(r, 64)
            assertContains(r.stderr, "--min-coverage takes a percentage from 0 to 100", in: r, "stderr")
            assertContains(r.stderr, shown, in: r, "stderr")
            assertLacks(r.stdout, "passed", in: r)
        }
        let dir = try temporary()
        let missing = dir.appendingPathComponent("no/such/folder/cov.json").path
        let r = try runFixture(["--coverage-json", missing])
        assertExit(r, 64)
        assertContains(r.stderr, "--coverage-json \(missing): the folder \(dir.path)/no/such/folder does not exist", in: r, "stderr")
        assertLacks(r.stdout, "passed", in: r)
        let folder = try runFixture(["--coverage-json", dir.path])
        assertExit(folder, 64)
        assertContains(folder.stderr, "is a folder, not a file", in: folder, "stderr")
        let lcov = try runFixture(["--lcov", missing])
        assertExit(lcov, 64)
        assertContains(lcov.stderr, "--lcov \(missing): the folder", in: lcov, "stderr")
    }

    /// Whatever order the workers finish in, the same bytes.
    func testSameBytesAtAnyJobs() throws {
        let dir = try temporary()
        for (name, directory, extra) in [("fixture", Self.fixture, [String]()),
                                         ("movies", Host.repoRoot, ["--project", Host.moviesProject])] {
            var outputs: [(Data, Data)] = []
            for jobs in ["1", "2"] {
                let json = dir.appendingPathComponent("\(name)-\(jobs).json"), info = dir.appendingPathComponent("\(name)-\(jobs).info")
                let r = try Host.run(["test", "--jobs", jobs, "--coverage-json", json.path, "--lcov", info.path] + extra, directory: directory)
                // (The coverage is written whether the scenarios pass or not.)
                XCTAssertTrue(r.status == 0 || r.status == 1, r.transcript)
                outputs.append((try Data(contentsOf: json), try Data(contentsOf: info)))
            }
            XCTAssertEqual(outputs[0].0, outputs[1].0, "\(name): coverage JSON differs between --jobs 1 and 2")
            XCTAssertEqual(outputs[0].1, outputs[1].1, "\(name): LCOV differs between --jobs 1 and 2")
        }
    }

    /// The sample app: every rule expression of its screens is listed, with counts.
    func testSampleAppListsEveryRule() throws {
        let out = try temporary().appendingPathComponent("movies.json")
        let r = try Host.run(["test", "--project", Host.moviesProject, "--coverage-json", out.path])
        XCTAssertTrue(r.status == 0 || r.status == 1, r.transcript)
        let rules = try XCTUnwrap(try json(out)["rules"] as? [[String: Any]])
        // Every expression node of every "rule" in the screens, counted from the JSON itself.
        func sites(_ v: Any) -> Int {
            if v is String { return 1 }
            guard let o = v as? [String: Any], let (k, x) = o.first else { return 0 }
            switch k.uppercased() {
            case "AND", "OR": return 1 + ((x as? [Any]) ?? []).map(sites).reduce(0, +)
            case "NOT": return 1 + sites((x as? [Any])?.first ?? x)
            default: return 1
            }
        }
        func walk(_ v: Any) -> Int {
            if let o = v as? [String: Any] {
                return o.reduce(0) { $0 + ($1.key == "rule" ? sites($1.value) : walk($1.value)) }
            }
            if let a = v as? [Any] { return a.map(walk).reduce(0, +) }
            return 0
        }
        let screens = Host.repoRoot.appendingPathComponent(Host.moviesProject).appendingPathComponent("screens")
        var expected = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: screens.path) where f.hasSuffix(".json") {
            expected += walk(try JSONSerialization.jsonObject(with: Data(contentsOf: screens.appendingPathComponent(f))))
        }
        XCTAssertGreaterThan(expected, 5)
        // A named template's rule (loom.json "templates", docs/data.md) is evaluated per element
        // of the screens' `$each` lists and listed at the screen that expands it: its sites count
        // once each.
        let project = try JSONSerialization.jsonObject(with: Data(contentsOf: Host.repoRoot.appendingPathComponent(Host.moviesProject).appendingPathComponent("loom.json"))) as? [String: Any]
        for (_, template) in (project?["templates"] as? [String: Any]) ?? [:] {
            if let rule = (template as? [String: Any])?["rule"] { expected += sites(rule) }
        }
        // The screens' own expressions (named rules add their expansions, located in loom.json,
        // once evaluated).
        XCTAssertEqual(rules.filter { ($0["file"] as? String ?? "").contains("/screens/") }.count, expected)
        for rule in rules {
            for key in ["true", "false", "errored", "skipped"] { XCTAssertNotNil(rule[key] as? Int, "\(rule)") }
        }
        let gold = rules.filter { $0["name"] as? String == "is_gold_member" }
        XCTAssertFalse(gold.isEmpty)
        XCTAssertTrue(gold.contains { ($0["true"] as? Int ?? 0) > 0 } && gold.contains { ($0["false"] as? Int ?? 0) > 0 })
    }

    func testLcovIsReadByGenhtml() throws {
        let dir = try temporary()
        let info = dir.appendingPathComponent("lua.info")
        let r = try runFixture(["--lcov", info.path])
        assertExit(r, 0)
        let text = try String(contentsOf: info, encoding: .utf8)
        let plugin = Self.fixture.appendingPathComponent("plugins/cov/plugin.lua").standardizedFileURL.path
        XCTAssertTrue(text.hasPrefix("TN:\nSF:\(plugin)\n"), text)
        XCTAssertTrue(text.contains("\nDA:14,0\n"), "the unused rule's body never runs\n\(text)")
        XCTAssertNotNil(text.range(of: #"\nDA:9,[1-9][0-9]*\n"#, options: .regularExpression), "fragile raises for free\n\(text)")
        XCTAssertTrue(text.hasSuffix("LF:14\nLH:13\nend_of_record\n"), text)
        XCTAssertFalse(text.contains("scenarios/"), "scenario files are not plugin files\n\(text)")
        guard let genhtml = Host.which("genhtml") else {
            throw XCTSkip("genhtml (Debian package lcov) is not installed: scripts/setup-deps installs it; the LCOV file was checked by hand only")
        }
        let html = dir.appendingPathComponent("html")
        let g = try Host.runExecutable(genhtml, ["--quiet", "-o", html.path, info.path], directory: Self.fixture)
        XCTAssertEqual(g.status, 0, g.transcript)
        XCTAssertTrue(FileManager.default.fileExists(atPath: html.appendingPathComponent("index.html").path), g.transcript)
    }
}
