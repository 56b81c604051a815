import Foundation
import XCTest

/// Dynamic Type (`--text-size`, loom.json's "text_sizes", `t:open{text_size=}`) and the
/// accessibility findings of `host check --a11y` (docs/accessibility.md), through the built host.
final class AccessibilityCheckTests: XCTestCase {
    /// One screen: a label that fits at l and not at ax3, a grey hint (#777777 on white, 4.48:1)
    /// and an image without a label; `loom` is loom.json.
    func makeProject(loom: String = #"{"name": "a11y", "devices": ["iphone-15"], "text_sizes": ["l", "ax3"]}"#) throws -> URL {
        let root = try Host.temporaryFolder("a11y")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": loom,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "container", "id": "root", "children": [
                  {"type": "label", "id": "title", "meta": {"text": "Watch the trailer"},
                   "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 16", "width == 200"]},
                  {"type": "label", "id": "hint", "style": "Hint", "meta": {"text": "Tap to play"},
                   "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 200", "width == 300"]},
                  {"type": "image", "id": "poster", "meta": {"size": {"width": 100, "height": 150}},
                   "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 300"]},
                  {"type": "image", "id": "logo", "meta": {"size": {"width": 50, "height": 50}, "accessibility_label": "Loom"},
                   "constraints": ["left == safe_area.left + 200", "top == safe_area.top + 300"]}
                ]}}
                """,
            "styles/Hint.json": ##"{"text_color": "#777777"}"##,
            "scenarios/a11y.lua": """
                scenario("the title fits at l", function(t)
                  local s = t:open("home")
                  s:expect_accessible("title")
                end)
                scenario("the title is cut at ax3", function(t)
                  local s = t:open("home", { text_size = "ax3" })
                  expect_error(function() s:expect_accessible("title") end, "truncated")
                end)
                scenario("the hint and the poster fail", function(t)
                  local s = t:open("home")
                  expect_error(function() s:expect_accessible("hint") end, "low_contrast")
                  expect_error(function() s:expect_accessible("poster") end, "missing_label")
                  s:expect_accessible("logo")
                end)
                """,
        ], under: root)
        return root
    }

    func testCheckRunsTheMatrixOverTheProjectsTextSizes() throws {
        let root = try makeProject()
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 0)
        assertMatches(r.stdout, #"^checked 1 screen × 1 profile × 1 device × 2 text sizes: 0 errors, 1 warning$"#, in: r, "the summary")
        // The truncation only at ax3, and no accessibility finding without --a11y.
        assertMatches(r.stderr, #"home\.json:\d+:\d+: warning: truncated: the text of #title .* \(no user on iphone-15 at ax3\)"#, in: r, "stderr")
        assertLacks(r.stderr, "low_contrast", in: r, "stderr")
        assertLacks(r.stderr, "missing_label", in: r, "stderr")
    }

    func testA11yReportsLowContrastAndMissingLabelWhereExpected() throws {
        let root = try makeProject(loom: #"{"name": "a11y", "devices": ["iphone-15"]}"#)
        let r = try Host.run(["check", "--a11y", "--project", root.path])
        assertExit(r, 0)
        assertMatches(r.stdout, #"^checked 1 screen × 1 profile × 1 device: 0 errors, 2 warnings$"#, in: r, "the summary")
        assertMatches(r.stderr, #"home\.json:\d+:\d+: warning: low_contrast: the text of #hint \(root/children\[1\]\) \(#777777 on #FFFFFF\) has a contrast ratio of 4\.48:1, below the 4\.5:1 WCAG 2\.2 asks for text under 18 points \(17 points\).*; fix: change its style's 'text_color'"#, in: r, "stderr")
        assertMatches(r.stderr, #"home\.json:\d+:\d+: warning: missing_label: #poster \(root/children\[2\]\) is an image and has no accessibility_label"#, in: r, "stderr")
        assertLacks(r.stderr, "#logo", in: r, "stderr")
        assertLacks(r.stderr, "truncated", in: r, "stderr")
        // A dark screen background: the default black text is now the problem, the grey hint is not (4.68:1).
        let dark = try makeProject(loom: ##"{"name": "a11y", "devices": ["iphone-15"], "screen_background": "#000000"}"##)
        let d = try Host.run(["check", "--a11y", "--project", dark.path, "--format", "json"])
        assertContains(d.stdout, "low_contrast: the text of #title", in: d)
        assertLacks(d.stdout, "low_contrast: the text of #hint", in: d)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(d.stdout.utf8)) as? [String: Any], d.transcript)
        XCTAssertEqual(json["text_sizes"] as? [String], ["l"])
    }

    /// Colours in an inline `"style": {…}` object are not resolved (docs/styles.md), so the
    /// contrast cannot be checked: `--a11y` says so at the node instead of passing silently
    /// (found trying the feature as a new user: a #999999 hint written inline got no finding),
    /// with or without a styles folder; an ancestor's inline background counts too, and so
    /// does a style name that no property file defines.
    func testUnresolvedStyleColoursAreReportedAsNotChecked() throws {
        for withStyles in [false, true] {
            let root = try Host.temporaryFolder("a11y-inline")
            addTeardownBlock { try? FileManager.default.removeItem(at: root) }
            var files = [
                "loom.json": #"{"name": "a11y", "devices": ["iphone-15"]}"#,
                "screens/home.json": ##"""
                    {"screen": "home", "root": {"type": "container", "id": "root", "children": [
                      {"type": "label", "id": "hint", "style": {"text_color": "#999999"}, "meta": {"text": "Free delivery"},
                       "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 16", "width == 300"]},
                      {"type": "container", "id": "panel", "style": {"background": "#000000"},
                       "constraints": ["left == safe_area.left", "top == safe_area.top + 100", "width == 300", "height == 100"],
                       "children": [
                        {"type": "label", "id": "inside", "meta": {"text": "Dark"},
                         "constraints": ["left == parent.left", "top == parent.top", "width == 200"]}]},
                      {"type": "label", "id": "plain", "meta": {"text": "Black on white"},
                       "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 300", "width == 300"]},
                      {"type": "label", "id": "named", "style": "Hint", "meta": {"text": "Grey?"},
                       "constraints": ["left == safe_area.left + 16", "top == safe_area.top + 400", "width == 300"]}
                    ]}}
                    """##,
            ]
            if withStyles { files["styles/Other.json"] = ##"{"text_color": "#000000"}"## }
            try Host.write(files, under: root)
            let r = try Host.run(["check", "--a11y", "--project", root.path])
            assertExit(r, 0)
            assertMatches(r.stderr, #"home\.json:2:3: warning: low_contrast: the contrast of the text of #hint \(root/children\[0\]\) is not checked: text_color is in an inline "style" object, which the host does not resolve.*; fix: move text_color into a property file of the styles folder"#, in: r, "stderr \(withStyles)")
            assertMatches(r.stderr, #"home\.json:\d+:\d+: warning: low_contrast: the contrast of the text of #inside \(root/children\[1\]/children\[0\]\) is not checked: background is in an inline "style" object"#, in: r, "stderr \(withStyles)")
            assertLacks(r.stderr, "#plain", in: r, "stderr \(withStyles)")
            // A style name no property file defines: its colours are unknown too.
            assertMatches(r.stderr, #"home\.json:\d+:\d+: warning: low_contrast: the contrast of the text of #named \(root/children\[3\]\) is not checked: its colours come from style 'Hint', which no property file of the styles folders defines.*; fix: add a property file for 'Hint'"#, in: r, "stderr \(withStyles)")
            // Without --a11y: no such finding.
            let plain = try Host.run(["check", "--project", root.path])
            assertLacks(plain.stderr, "low_contrast", in: plain, "stderr \(withStyles)")
        }
    }

    func testBadTextSizesAndColoursAreLocatedErrors() throws {
        let root = try makeProject(loom: ##"{"name": "a11y", "devices": ["iphone-15"], "text_sizes": ["l", "xxxxl", "l", 3], "screen_background": "white"}"##)
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 1)
        assertMatches(r.stderr, #"loom\.json:1:\d+: error: "text_sizes": a text size is one of xs, s, m, l, xl, xxl, xxxl, ax1, ax2, ax3, ax4, ax5, found 'xxxxl'; did you mean 'xxxl'\?"#, in: r, "stderr")
        assertMatches(r.stderr, #"loom\.json:1:\d+: error: text size 'l' is listed twice in "text_sizes""#, in: r, "stderr")
        assertMatches(r.stderr, #"loom\.json:1:\d+: error: "text_sizes" lists text size names \(strings\), found "#, in: r, "stderr")
        assertMatches(r.stderr, ##"loom\.json:1:\d+: error: "screen_background" is a colour "#RRGGBB" \(or "#AARRGGBB"\), found 'white'; white is used"##, in: r, "stderr")
        // The valid size is still checked.
        assertMatches(r.stdout, #"^checked 1 screen × 1 profile × 1 device: "#, in: r, "the summary")
        let bad = try Host.run(["run", "home", "--project", root.path, "--layout", "--text-size", "huge"])
        assertExit(bad, 64)
        assertContains(bad.stderr, "--text-size: a text size is one of xs, s, m, l", in: bad, "stderr")
    }

    /// `host run --layout --text-size`: the label's frame grows with the size; `l` is the
    /// output without the option, byte for byte.
    func testRunLaysOutAtTheTextSize() throws {
        let root = try makeProject()
        let plain = try Host.run(["run", "home", "--project", root.path, "--layout"])
        let l = try Host.run(["run", "home", "--project", root.path, "--layout", "--text-size", "L"])
        assertExit(plain, 0)
        XCTAssertEqual(plain.stdout, l.stdout)
        let big = try Host.run(["run", "home", "--project", root.path, "--layout", "--text-size", "ax3"])
        assertExit(big, 0)
        assertMatches(big.stdout, #"truncated root/children\[0\]: the text of #title"#, in: big, "stdout")
        assertLacks(plain.stdout, "truncated", in: plain, "stdout")
    }

    func testScenariosOpenAtATextSizeAndExpectAccessible() throws {
        let root = try makeProject()
        let r = try Host.run(["test", "--project", root.path])
        assertExit(r, 0)
        assertContains(r.stdout, "3 passed", in: r)
    }

    /// `host matrix --findings` on the sample's 1,000 users: the banner's truncation on an
    /// iPhone SE reaches exactly the users who see the banner (the matrix's own count of
    /// `upsell_banner`), the same at any --jobs; csv and html are refused.
    func testMatrixFindingsCountTheUsersEachFindingReaches() throws {
        let movies = Host.moviesProject
        func run(_ jobs: String) throws -> HostResult {
            try Host.run(["matrix", "home", "--project", movies, "--users", movies + "/population.jsonl", "--by", "tier",
                          "--device", "iphone-se-1st", "--findings", "--format", "json", "--jobs", jobs])
        }
        let one = try run("1"), two = try run("2")
        assertExit(one, 0)
        XCTAssertEqual(one.stdout, two.stdout)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any], one.transcript)
        let segments = try XCTUnwrap(json["segments"] as? [[String: Any]])
        let sees = segments.flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }.filter { $0["id"] as? String == "upsell_banner" }.compactMap { $0["users"] as? Int }.reduce(0, +)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.count, 1, one.stdout)
        XCTAssertEqual(findings.first?["kind"] as? String, "truncated")
        XCTAssertTrue((findings.first?["finding"] as? String)?.contains("#upsell_banner") == true)
        XCTAssertGreaterThan(sees, 0)
        XCTAssertEqual(findings.first?["users"] as? Int, sees)
        // On an iPhone 15 the banner fits: no findings at all.
        let fifteen = try Host.run(["matrix", "home", "--project", movies, "--users", movies + "/population.jsonl", "--findings"])
        assertMatches(fifteen.stdout, #"^findings: 0 \(users each reaches, of 1000\)$"#, in: fifteen, "stdout")
        let csv = try Host.run(["matrix", "home", "--project", movies, "--users", movies + "/population.jsonl", "--findings", "--format", "csv"])
        assertExit(csv, 64)
        assertContains(csv.stderr, "--findings prints with --format text or json", in: csv, "stderr")
    }
}
