import Foundation
import XCTest

/// `s:mutate` and `s:expect_change` in scenarios: the sample app's mutations.lua passes, and
/// each misuse fails its scenario at the line with an actionable message.
final class ScenarioMutationTests: XCTestCase {
    func testSampleMutationsPass() throws {
        let r = try Host.run(["test", Host.moviesProject + "/scenarios/mutations.lua"])
        assertExit(r, 0)
        assertContains(r.stdout, "3 passed, 0 failed", in: r)
    }

    func testMisusesFailAtTheirLines() throws {
        let dir = try Host.temporaryFolder("mutations")
        let project = dir.appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        let file = project.appendingPathComponent("scenarios/bad.lua")
        try Data("""
            scenario("bad op", function(t)
              local s = t:open("home", { user = "gold" })
              s:mutate("watched", "apend", {})
            end)
            scenario("bad index", function(t)
              local s = t:open("home", { user = "gold" })
              s:mutate("watched", "delete", { index = 9 })
            end)
            scenario("expect first", function(t)
              local s = t:open("home", { user = "gold" })
              s:expect_change("watched", "soft")
            end)
            scenario("wrong kind", function(t)
              local s = t:open("home", { user = "gold" })
              s:mutate("watched", "delete", { index = 0 })
              s:expect_change("watched", "hard")
            end)
            scenario("unknown component", function(t)
              local s = t:open("home", { user = "gold" })
              s:mutate("wached", "append", { { title = "X", kind = "movie" } })
            end)
            """.utf8).write(to: file)
        let r = try Host.run(["test", file.path])
        assertExit(r, 1)
        assertContains(r.stdout, "bad.lua:3: s:mutate(id, op, payload): op is one of append, prepend, insert, update, delete, reload, found 'apend'; did you mean 'append'?", in: r)
        assertContains(r.stdout, "bad.lua:7: s:mutate(id, op, payload): delete index 9 is out of range: 'watched' has 3 items here (0…2)", in: r)
        assertContains(r.stdout, "bad.lua:11: s:expect_change(id, kind): no s:mutate in this session yet", in: r)
        assertContains(r.stdout, "bad.lua:16: expected a hard change of 'watched' or inside it; the last s:mutate made:", in: r)
        assertContains(r.stdout, "deleted  item 'movie-42' (root/children[0]/children[0]/children[0]/items[0])", in: r)
        assertContains(r.stdout, "no component 'wached'", in: r)
        assertContains(r.stdout, "0 passed, 5 failed", in: r)
    }
}
