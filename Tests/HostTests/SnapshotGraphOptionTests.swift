import Foundation
import XCTest

/// `s:expect_snapshot{ graph = "screen" | false }`: the graph part of a snapshot.
final class SnapshotGraphOptionTests: XCTestCase {
    func moviesCopy(scenario: String) throws -> URL {
        let root = try Host.temporaryFolder("snapshot-graph")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let project = root.appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        try FileManager.default.removeItem(at: project.appendingPathComponent("scenarios"))
        try Host.write(["scenarios/g.lua": scenario], under: project)
        return project
    }

    func graphPart(_ project: URL, _ name: String) throws -> String {
        let url = project.appendingPathComponent("scenarios/__snapshots__/g/\(name).snap")
        let text = try String(contentsOf: url, encoding: .utf8)
        let r = try XCTUnwrap(text.range(of: "\ngraph:\n"), text)
        return String(text[r.upperBound...])
    }

    func testGraphScreenKeepsThisScreensEdgesAndFalseKeepsNone() throws {
        let project = try moviesCopy(scenario: """
            scenario("s", function(t)
              local s = t:open("home", { user = "gold" })
              s:expect_snapshot("all")
              s:expect_snapshot{ name = "home", graph = "screen" }
              s:expect_snapshot("none", { graph = false })
              s:expect_snapshot{ name = "whole", graph = true }
              s:tap("movie:42")
              s:expect_snapshot{ name = "detail", graph = "screen" }
            end)
            """)
        let r = try Host.run(["test", project.appendingPathComponent("scenarios").path])
        XCTAssertEqual(r.status, 0, r.transcript)

        let all = try graphPart(project, "s-all")
        XCTAssertTrue(all.hasPrefix("navigation from home (flow main)\nhome [main]\n"), all)
        XCTAssertTrue(all.contains("\nmovie_detail [main]\n"), all)
        XCTAssertEqual(try graphPart(project, "s-whole"), all)

        let home = try graphPart(project, "s-home")
        XCTAssertTrue(home.hasPrefix("navigation from home (flow main)\nhome [main]\n"), home)
        XCTAssertTrue(home.contains("── movie (push) ──▶ movie_detail"), home)
        XCTAssertFalse(home.contains("\nmovie_detail [main]\n"), home)
        XCTAssertTrue(all.hasPrefix(home.components(separatedBy: "\n").prefix(3).joined(separator: "\n")), home)
        XCTAssertLessThan(home.count, all.count)

        let detail = try graphPart(project, "s-detail")
        XCTAssertTrue(detail.contains("\nmovie_detail [main]\n"), detail)
        XCTAssertFalse(detail.contains("\nhome [main]\n"), detail)

        XCTAssertEqual(try graphPart(project, "s-none"), "(left out: graph = false)\n")
    }

    func testBadOptionsFailTheScenario() throws {
        let project = try moviesCopy(scenario: """
            scenario("bad graph", function(t)
              t:open("home", { user = "gold" }):expect_snapshot{ graph = "all" }
            end)
            scenario("unknown key", function(t)
              t:open("home", { user = "gold" }):expect_snapshot{ grpah = false }
            end)
            scenario("bad name", function(t)
              t:open("home", { user = "gold" }):expect_snapshot(42)
            end)
            """)
        let r = try Host.run(["test", project.appendingPathComponent("scenarios").path])
        XCTAssertNotEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains("0 passed, 3 failed"), r.transcript)
        XCTAssertTrue(r.transcript.contains(#"graph must be true, "screen" or false, found "all""#), r.transcript)
        XCTAssertTrue(r.transcript.contains("unknown option 'grpah'"), r.transcript)
        XCTAssertTrue(r.transcript.contains("name must be a string, found"), r.transcript)
    }
}
