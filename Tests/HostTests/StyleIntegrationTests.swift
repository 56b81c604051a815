import Foundation
import XCTest

/// Styles in screen resolution (docs/styles.md, "Styles in screens"): `host run` per device,
/// orientation and size classes, `node.style` in builders, style schemas, located errors,
/// device attributes for rules, scenarios.
final class StyleIntegrationTests: XCTestCase {
    static let plugin = """
        return {
          name = "cards", version = "1.0", api = 1,
          register = function(host)
            host.single("card", function(node)
              local st = node.style or {}
              return { view = "Card", props = { color = st.title_color, height = st.height, seen = type(node.style) } }
            end, { style = { title_color = "color", padding = "insets", height = "unsigned" } })
          end,
        }
        """

    func project(_ extra: [String: String] = [:]) throws -> URL {
        let root = try Host.temporaryFolder("styles")
        var files: [String: String] = [
            "loom.json": #"{"name": "p"}"#,
            "plugins/cards/plugin.lua": Self.plugin,
            "screens/s.json": """
                {"screen": "s", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "card", "id": "login", "style": "Login"},
                  {"type": "card", "id": "plain"},
                  {"type": "label", "id": "greeting", "meta": {"text": "hi"}, "style": ["Nope"]},
                  {"type": "label", "id": "pad_only", "meta": {"text": "pad"}, "rule": {"in": {"device.idiom": ["pad"]}}}
                ]}}
                """,
            "styles/Base.json": ##"{"title_color": "#00FF00", "height": 40}"##,
            "styles/Login.json": "{\n  \"@imports\": [\"Base\"],\n  \"title_color\": \"#FF0000\",\n  \"paddin\": 3\n}",
            "styles/Login-568h.json": #"{"height": 44}"#,
            "styles/Login~ipad.json": ##"{"height": 60, "title_color": "#800000FF"}"##,
            "styles/card-traits.json": #"{"[* *]": {"height": 10}, "[+ *]": {"height": 20}}"#,
            "users.json": #"{"ipaduser": {"device.idiom": "pad"}, "plain": {"tier": "x"}}"#,
        ]
        for (k, v) in extra { files[k] = v }
        try Host.write(files, under: root)
        return root
    }

    func run(_ root: URL, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> HostResult {
        try Host.run(["run", "screens/s.json", "--no-graph"] + args, directory: root, file: file, line: line)
    }

    func node(_ r: HostResult, _ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let tree = try r.jsonObject(file: file, line: line)["tree"]
        return try XCTUnwrap(TreeJSON.components(tree).first { $0["id"] as? String == id }, "no node \(id)\n\(r.transcript)", file: file, line: line)
    }

    func testTextShowsOneStyleLinePerStyledNodePerDevice() throws {
        let root = try project()
        let phone = try run(root, ["--device", "iphone-se-1st"])
        assertExit(phone, 0)
        assertContains(phone.stdout, "style: title_color=#FF0000 paddin=3 height=44", in: phone, "stdout")
        assertContains(phone.stdout, "style: height=10", in: phone, "stdout")
        // A name that is no style: a warning at the name, the key shown as written.
        assertContains(phone.stdout, #"style: ["Nope"]"#, in: phone, "stdout")
        assertMatches(phone.stderr, #"screens/s\.json:4:\d+: warning: no style 'Nope'"#, in: phone, "stderr")
        let pad = try run(root, ["--device", "ipad"])
        assertContains(pad.stdout, "style: title_color=#800000FF paddin=3 height=60", in: pad, "stdout")
        assertContains(pad.stdout, "style: height=20", in: pad, "stdout")
    }

    func testJSONHasTheTypedShapesAndBuildersSeeThem() throws {
        let root = try project()
        let r = try run(root, ["--device", "iphone-15", "--format", "json"])
        assertExit(r, 0)
        let login = try node(r, "login")
        let style = try XCTUnwrap(login["style"] as? [String: Any], r.transcript)
        let color = try XCTUnwrap(style["title_color"] as? [String: Double], r.transcript)
        XCTAssertEqual(color, ["r": 1, "g": 0, "b": 0, "a": 1])
        XCTAssertEqual(style["height"] as? Int, 44)
        // The builder received the resolved values as node.style.
        let props = try XCTUnwrap(login["props"] as? [String: Any])
        XCTAssertEqual(props["color"] as? [String: Double], ["r": 1, "g": 0, "b": 0, "a": 1], r.transcript)
        XCTAssertEqual(props["height"] as? Int, 44)
        XCTAssertEqual(props["seen"] as? String, "table")
        // The iPad's ARGB color: alpha first.
        let pad = try run(root, ["--device", "ipad", "--format", "json"])
        let padColor = try XCTUnwrap((try node(pad, "login")["style"] as? [String: Any])?["title_color"] as? [String: Double])
        XCTAssertEqual(padColor["a"] ?? -1, 0.502, accuracy: 0.001)
        XCTAssertEqual(padColor["b"], 1)
    }

    func testTraitsFlagOverridesTheDevicesSizeClasses() throws {
        let root = try project()
        let regular = try run(root, ["--device", "iphone-15", "--traits", "regular regular", "--format", "json"])
        XCTAssertEqual((try node(regular, "plain")["style"] as? [String: Any])?["height"] as? Int, 20, regular.transcript)
        let landscapePlus = try run(root, ["--device", "iphone-8-plus", "--orientation", "landscape", "--format", "json"])
        XCTAssertEqual((try node(landscapePlus, "plain")["style"] as? [String: Any])?["height"] as? Int, 20, landscapePlus.transcript)
        let bad = try run(root, ["--traits", "wide tall"])
        assertExit(bad, 64)
        let unknown = try run(root, ["--device", "iphone-16"])
        assertExit(unknown, 64)
        assertContains(unknown.stderr, "did you mean", in: unknown, "stderr")
    }

    func testExplainShowsTheWinningFileAndWhatItOverrode() throws {
        let root = try project()
        let r = try run(root, ["--device", "iphone-se-1st", "--explain"])
        assertContains(r.stdout, "height ← styles/Login-568h.json:1 (overrode styles/Base.json:1)", in: r, "stdout")
        assertContains(r.stdout, "title_color ← styles/Login.json:3 (overrode styles/Base.json:1)", in: r, "stdout")
        let j = try run(root, ["--device", "iphone-se-1st", "--explain", "--format", "json"])
        let prov = try XCTUnwrap(try node(j, "login")["style_provenance"] as? [String: [String: Any]], j.transcript)
        XCTAssertEqual(prov["height"]?["from"] as? String, "styles/Login-568h.json:1")
        XCTAssertEqual(prov["height"]?["overrode"] as? [String], ["styles/Base.json:1"])
    }

    func testSchemaWarningsHaveADidYouMean() throws {
        let root = try project()
        let r = try run(root, [])
        assertExit(r, 0)
        assertContains(r.stderr, "styles/Login.json:4:3: warning: 'paddin' is not declared in the style schema of 'card'; did you mean 'padding'?", in: r, "stderr")
    }

    func testABadValueInAStyleAScreenUsesIsALocatedError() throws {
        let root = try project([
            "styles/Login~iphone.json": "{\n  \"title_color\": \"#FF00000\"\n}",
            "styles/Login-812h.json": "{\n  \"height\": -4\n}",
            "screens/s.json": """
                {"screen": "s", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "card", "id": "login", "style": "Login"},
                  {"type": "card", "id": "again", "style": "Login"}
                ]}}
                """,
        ])
        let r = try run(root, ["--device", "iphone-15"])
        assertExit(r, 1)
        assertContains(r.stderr, "styles/Login~iphone.json:2:18: error: 'title_color'", in: r, "stderr")
        assertContains(r.stderr, "styles/Login-812h.json:2:13: error: 'height'", in: r, "stderr")
        // The bad keys are not applied (no fallback to what they overrode, no silent zero).
        assertContains(r.stdout, "style: paddin=3\n", in: r, "stdout")
        // Reported once per resolution, however many components use the style.
        XCTAssertEqual(r.stderr.components(separatedBy: "Login~iphone.json:2").count - 1, 1, r.transcript)
        // A device that does not load those files is not affected.
        let pad = try run(root, ["--device", "ipad"])
        assertExit(pad, 0)
    }

    func testAnImportCycleIsOneLocatedErrorAndNothingHangs() throws {
        let root = try project(["styles/Base.json": #"{"@imports": ["Login"], "height": 40}"#])
        let r = try run(root, [])
        assertExit(r, 1)
        assertContains(r.stderr, "Login → Base → Login", in: r, "stderr")
    }

    func testABadSchemaTypeIsARegistrationError() throws {
        let bad = Self.plugin.replacingOccurrences(of: #"height = "unsigned""#, with: #"height = "unsinged""#)
        let root = try project(["plugins/cards/plugin.lua": bad])
        let r = try run(root, [])
        assertExit(r, 1)
        assertContains(r.stderr, "options.style.height", in: r, "stderr")
        assertContains(r.stderr, "did you mean 'unsigned'", in: r, "stderr")
    }

    func testRulesReadTheDeviceAndTheUsersAttributesWin() throws {
        let root = try project()
        let phone = try run(root, ["--user", "plain"])
        assertLacks(phone.stdout, "pad_only", in: phone, "stdout")
        // No "lacks attribute" warning: the device context gives it.
        assertLacks(phone.stderr, "device.idiom", in: phone, "stderr")
        let pad = try run(root, ["--device", "ipad"])
        assertContains(pad.stdout, "pad_only", in: pad, "stdout")
        let override = try run(root, ["--user", "ipaduser"])
        assertContains(override.stdout, "pad_only", in: override, "stdout")
    }

    func testWithoutStylesTheStyleKeyIsShownAsWritten() throws {
        let root = try Host.temporaryFolder("nostyles")
        try Host.write([
            "screens/s.json": #"{"screen": "s", "root": {"type": "label", "id": "l", "meta": {"text": "x"}, "style": {"color": "red"}}}"#,
        ], under: root)
        let r = try Host.run(["run", "screens/s.json", "--no-graph"], directory: root)
        assertExit(r, 0)
        assertContains(r.stdout, #"style: {"color":"red"}"#, in: r, "stdout")
        assertLacks(r.stderr, "warning", in: r, "stderr")
    }

    func testAStylesKeyNamingAMissingFolderIsALocatedError() throws {
        let root = try project(["loom.json": "{\n  \"styles\": \"looks\"\n}"])
        let r = try run(root, [])
        assertExit(r, 1)
        assertContains(r.stderr, "loom.json:2:13: error: \"styles\" names the folder 'looks', which does not exist", in: r, "stderr")
    }

    func testScenariosOpenForADeviceAndExpectStyles() throws {
        let root = try project(["scenarios/s.lua": """
            scenario("se", function(t)
              local s = t:open("s", { device = "iphone-se-1st", orientation = "portrait", traits = "compact regular" })
              s:expect_style("login", "height", 44)
              s:expect_style("login", "title_color", "#FF0000")
              s:expect_style("login", "title_color", { r = 1, g = 0, b = 0, a = 1 })
              s:expect_style("plain", "height", 10)
            end)
            scenario("ipad", function(t)
              local s = t:open("s", { device = "ipad" })
              s:expect_style("login", "height", 60)
              s:expect_style("login", "title_color", "#800000FF")
            end)
            scenario("builders run per device", function(t)
              local a = t:open("s", { device = "iphone-se-1st" })
              a:expect_prop("login", "height", 44)
              local b = t:open("s", { device = "ipad" })
              b:expect_prop("login", "height", 60)
              a:expect_prop("login", "height", 44)
            end)
            scenario("fails", function(t)
              local s = t:open("s", { device = "ipad" })
              s:expect_style("login", "height", 44)
            end)
            scenario("bad device", function(t)
              t:open("s", { device = "iphone-16" })
            end)
            """])
        let r = try Host.run(["test", "scenarios/s.lua"], directory: root)
        assertExit(r, 1)
        assertContains(r.stdout, "3 passed, 2 failed", in: r, "stdout")
        assertContains(r.stdout, "expected style.height of 'login' (card) on ipad portrait, regular regular to be 44, got 60", in: r, "stdout")
        assertContains(r.stdout, "iphone-16", in: r, "stdout")
    }

    /// A property file that is not valid JSON fails `host check` and `host test` with its
    /// location, as it fails `host run`.
    func testCheckAndTestReportUnreadablePropertyFiles() throws {
        let root = try project([
            "styles/Broken.json": "{\n  \"title_color\": ,\n}",
            "scenarios/s.lua": """
                scenario("opens", function(t)
                  local s = t:open("s", { user = "plain" })
                  s:expect_visible("login")
                end)
                """,
        ])
        let check = try Host.run(["check"], directory: root)
        assertExit(check, 1)
        assertMatches(check.stderr, #"styles/Broken\.json:2:\d+: error: "#, in: check, "stderr")
        let test = try Host.run(["test"], directory: root)
        assertExit(test, 1)
        assertMatches(test.stdout + test.stderr, #"styles/Broken\.json:2:\d+: error: "#, in: test, "output")
    }

    /// `--device` reaches every command that resolves: rules reading `device.idiom` see the
    /// chosen device in `host eval`, `host matrix`, `host diff`, `host graph` and `host navigate`.
    func testEveryResolvingCommandTakesTheDevice() throws {
        let root = try project()
        let eval = try Host.run(["eval", "screens/s.json", "--users", "users.json", "--device", "ipad"], directory: root)
        assertExit(eval, 0)
        assertContains(eval.stdout, #""pad_only""#, in: eval, "stdout")
        let phone = try Host.run(["eval", "screens/s.json", "--users", "users.json"], directory: root)
        assertExit(phone, 0)
        let plain = lines(of: phone.stdout, matching: #""user":"plain""#)
        XCTAssertEqual(plain.count, 1, phone.transcript)
        XCTAssertFalse(plain.joined().contains("pad_only"), phone.transcript)
        XCTAssertTrue(lines(of: eval.stdout, matching: #""user":"plain""#).joined().contains("pad_only"), eval.transcript)
        // Every worker thread resolves on the device: --jobs 2 gives the same lines as --jobs 1,
        // each with the iPad-only label (2,000 users, so the second worker takes batches).
        let many = (0..<2000).map { #"{"name": "u\#($0)", "tier": "x"}"# }.joined(separator: "\n") + "\n"
        try many.write(to: root.appendingPathComponent("many.jsonl"), atomically: true, encoding: .utf8)
        let one = try Host.run(["eval", "screens/s.json", "--users", "many.jsonl", "--device", "ipad", "--jobs", "1"], directory: root)
        let two = try Host.run(["eval", "screens/s.json", "--users", "many.jsonl", "--device", "ipad", "--jobs", "2"], directory: root)
        assertExit(two, 0)
        XCTAssertEqual(two.stdout, one.stdout)
        XCTAssertEqual(lines(of: two.stdout, matching: #""pad_only""#).count, 2000, two.transcript)
        let matrix = try Host.run(["matrix", "screens/s.json", "--users", "users.json", "--device", "ipad"], directory: root)
        assertExit(matrix, 0)
        assertContains(matrix.stdout, "pad_only", in: matrix, "stdout")
        let diff = try Host.run(["diff", "screens/s.json", "screens/s.json", "--user", "plain", "--device", "ipad"], directory: root)
        assertExit(diff, 0)
        for cmd in [["graph", "screens/s.json"], ["graph", "screens/s.json", "--format", "json"]] {
            let r = try Host.run(cmd + ["--user", "plain", "--device", "ipad"], directory: root)
            assertExit(r, 0)
            let bad = try Host.run(cmd + ["--user", "plain", "--device", "ipadd"], directory: root)
            assertExit(bad, 64)
            assertContains(bad.stderr, "did you mean 'ipad'", in: bad, "stderr")
        }
        let nav = try Host.run(["navigate", "screens/s.json", "--user", "plain", "--device", "ipadd", "--steps", "x"], directory: root)
        assertExit(nav, 64)
        assertContains(nav.stderr, "did you mean 'ipad'", in: nav, "stderr")
    }
}

extension StyleIntegrationTests {
    /// MRGArchitect's latest loader through `host run`: an 896-point iPhone loads `-896h`
    /// files (an 812-point one does not), and a property file ending with a trailing comma is
    /// read, with a warning naming file, line and column; a screen with one stays an error.
    func test896hFilesAndATrailingCommaInAPropertyFile() throws {
        let root = try project([
            "styles/Login-896h.json": "{\n  \"paddin\": 9,\n}\n",
            "screens/s.json": #"{"screen": "s", "root": {"type": "card", "id": "login", "style": "Login"}}"#,
            "screens/bad.json": "{\"screen\": \"bad\", \"root\": {\"type\": \"card\", \"id\": \"x\",}}",
        ])
        let xr = try run(root, ["--device", "iphone-xr"])
        assertExit(xr, 0)
        assertContains(xr.stdout, "paddin=9", in: xr, "stdout")
        assertContains(xr.stderr, "styles/Login-896h.json:2:14: warning: trailing comma before '}'", in: xr, "stderr")
        let x = try run(root, ["--device", "iphone-x"])
        assertExit(x, 0)
        XCTAssertFalse(x.stdout.contains("paddin=9"), x.transcript)
        let bad = try Host.run(["run", "screens/bad.json"], directory: root)
        assertExit(bad, 1)
        assertContains(bad.stderr, "screens/bad.json:1:53: error: trailing comma before '}' is not allowed", in: bad, "stderr")
    }
}
