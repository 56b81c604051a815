import Foundation
import XCTest

/// Examples in the docs, run as written.
final class DocExamplesTests: XCTestCase {
    /// The first ```lua block of docs/navigation.md (the premium flow with a deep link) replaces
    /// the movies example's own premium flow; a scenario then opens the link the prose describes.
    /// scripts/check-docs checks each relative link's #anchor against the target's headings as
    /// GitHub names them (code marks and punctuation dropped, spaces to dashes, repeats -1) and
    /// HTML ids, same-page anchors too, with a did-you-mean; a link inside code is not a link.
    func testCheckDocsFindsLinksToMissingHeadings() throws {
        let dir = try Host.temporaryFolder("check-docs-anchors")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "a.md": """
                # Guide: `host run --cache`

                ## Choosing the locale

                ## Choosing the locale

                Links: [ok](#choosing-the-locale), [second](#choosing-the-locale-1), [code](#guide-host-run---cache),
                [other](b.md#what-a-user-sees--and-why), [html](b.md#custom), [bad](b.md#what-a-user-see),
                [self bad](#chosing-the-locale), [file](b.md), [in code](`#nowhere`).

                ```text
                [not a link](#nowhere-either)
                ```
                """,
            "b.md": """
                ## What a user sees — and why

                <a id="custom"></a>
                """,
        ], under: dir)
        let script = Host.repoRoot.appendingPathComponent("scripts/check-docs")
        let r = try Host.runExecutable(script, [dir.appendingPathComponent("a.md").path])
        assertExit(r, 1)
        let failures = r.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        XCTAssertEqual(failures.count, 2, r.transcript)
        assertContains(r.stdout, "a.md:8: link to a missing heading: b.md#what-a-user-see (no heading of ", in: r)
        assertContains(r.stdout, "has the anchor '#what-a-user-see'; did you mean '#what-a-user-sees--and-why'?)", in: r)
        assertContains(r.stdout, "a.md:9: link to a missing heading: #chosing-the-locale (", in: r)
        assertContains(r.stdout, "did you mean '#choosing-the-locale'?", in: r)
    }

    func testNavigationDocLuaFlowLinkWorksAsWritten() throws {
        let doc = try String(contentsOf: Host.repoRoot.appendingPathComponent("docs/navigation.md"), encoding: .utf8)
        let start = try XCTUnwrap(doc.range(of: "```lua\n"))
        let end = try XCTUnwrap(doc.range(of: "\n```", range: start.upperBound..<doc.endIndex))
        let snippet = String(doc[start.upperBound..<end.lowerBound])
        XCTAssertTrue(snippet.contains("links = "), snippet)

        let root = try Host.temporaryFolder("doc-links")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let project = root.appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        try? FileManager.default.removeItem(at: project.appendingPathComponent("scenarios"))
        let pluginURL = project.appendingPathComponent("plugins/movies/plugin.lua")
        var plugin = try String(contentsOf: pluginURL, encoding: .utf8)
        let flowStart = try XCTUnwrap(plugin.range(of: "    host.flow(\"premium\", {"))
        let flowEnd = try XCTUnwrap(plugin.range(of: "\n    })\n", range: flowStart.upperBound..<plugin.endIndex))
        plugin.replaceSubrange(flowStart.lowerBound..<flowEnd.upperBound, with: snippet + "\n")
        try Data(plugin.utf8).write(to: pluginURL)
        try Host.write([
            "scenarios/link.lua": """
                scenario("the deep link of docs/navigation.md", function(t)
                  local s = t:open("home", { user = "gold" })
                  s:link("app://lounge/movie/42")
                  s:expect_stack({ "home", "premium_lounge", "movie_detail" })
                  s:back()
                  s:back()
                  s:link("app://lounge/movie/7")
                  s:expect_screen("movie_detail")
                end)
                """,
        ], under: project)
        let r = try Host.run(["test", project.appendingPathComponent("scenarios").path], environment: ["CI": "true"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains("1 passed"), r.transcript)
    }

    /// The sample app's pictures (docs/examples/movies/renders, shown in its README) are what
    /// `host render` draws today, byte for byte.
    func testSampleAppRendersAreCurrent() throws {
        let dir = try Host.temporaryFolder("renders")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var cases: [(file: String, args: [String])] = []
        for d in ["iphone-se-1st", "iphone-15", "ipad"] {
            cases.append(("home-free-\(d).svg", [Host.homeScreen, "--user", "free", "--device", d]))
            cases.append(("movie_detail-gold-\(d).svg", [Host.moviesProject + "/screens/movie_detail.json", "--user", "gold", "--param", "id=42", "--device", d]))
        }
        cases.append(("home-matrix.svg", [Host.homeScreen, "--matrix", "--users", "gold,free", "--devices", "iphone-se-1st,iphone-15,ipad"]))
        cases.append(("home-gold-iphone-15.svg", [Host.homeScreen, "--user", "gold"]))
        cases.append(("home-free-iphone-15-wire.svg", [Host.homeScreen, "--user", "free", "--look", "wire"]))
        // Arabic: the texts of strings/ar.json and the mirrored frames (docs/localization.md).
        cases.append(("home-gold-ar-iphone-15.svg", [Host.homeScreen, "--user", "gold", "--locale", "ar"]))
        // The labels' text colour on the white screen (styles/label.json: #1C1C1E).
        cases.append(("settings-gold-iphone-15.svg", [Host.moviesProject + "/screens/settings.json", "--user", "gold"]))
        for c in cases {
            let out = dir.appendingPathComponent(c.file)
            let r = try Host.run(["render"] + c.args + ["-o", out.path])
            assertExit(r, 0)
            let want = try Data(contentsOf: URL(fileURLWithPath: Host.moviesProject + "/renders/" + c.file))
            let got = try Data(contentsOf: out)
            XCTAssertEqual(got, want, "renders/\(c.file) is stale: regenerate it (docs/examples/movies/renders/README.md)")
        }
    }
}
