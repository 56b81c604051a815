import Foundation
import XCTest

/// Strings per locale through the CLI, scenarios and the server (docs/localization.md): three
/// locales (one right to left) with plurals, the fallback chain, missing keys and bad messages
/// located, `en-XA` finding a truncation and `ar-XB` mirroring every frame.
final class LocalizationCommandTests: XCTestCase {
    static let files: [String: String] = [
        "loom.json": #"{"name": "l10n", "default_locale": "en"}"#,
        "users.json": #"{"u": {"tier": "x"}, "norsk": {"locale": "nb-NO"}}"#,
        "plugins/boxes/plugin.lua": """
            return {
              name = "boxes", version = "1.0", api = 1,
              register = function(host)
                host.cluster("box", function(node) return { view = "Box", props = {} } end, { layout_as = "container" })
              end,
            }
            """,
        "strings/en.json": """
            {
              "greeting": "Hello, {name}!",
              "cart": "{count, plural, =0 {Your cart is empty} one {# item in your cart} other {# items in your cart}}",
              "title": "Movies",
              "banner": "Tonight's new releases are here"
            }
            """,
        "strings/nb.json": """
            {
              "greeting": "Hei, {name}!",
              "cart": "{count, plural, =0 {Handlekurven er tom} one {# vare i handlekurven} other {# varer i handlekurven}}",
              "title": "Filmer",
              "broken": "{count, plural, one {# vare}}"
            }
            """,
        "strings/ar.json": """
            {
              "greeting": "مرحبا، {name}!",
              "cart": "{count, plural, zero {السلة فارغة} one {عنصر واحد} two {عنصران} few {# عناصر} many {# عنصرًا} other {# عنصر}}",
              "title": "أفلام"
            }
            """,
        "screens/s.json": """
            {"screen": "s", "root": {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "greeting", "meta": {"text": {"localized_string": "greeting", "args": {"name": "Ada"}}}},
              {"type": "label", "id": "cart0", "meta": {"text": {"localized_string": "cart", "args": {"count": 0}}}},
              {"type": "label", "id": "cart1", "meta": {"text": {"localized_string": "cart", "args": {"count": 1}}}},
              {"type": "label", "id": "cart2", "meta": {"text": {"localized_string": "cart", "args": {"count": 2}}}},
              {"type": "label", "id": "cart3", "meta": {"text": {"localized_string": "cart", "args": {"count": 3}}}},
              {"type": "label", "id": "cart11", "meta": {"text": {"localized_string": "cart", "args": {"count": 11}}}},
              {"type": "label", "id": "title", "meta": {"text": {"key": "title", "type": "localized_string"}}},
              {"type": "label", "id": "banner", "meta": {"text": {"key": "banner", "type": "localized_string"}}},
              {"type": "label", "id": "missing", "meta": {"text": {"key": "nowhere", "type": "localized_string"}}}
            ]}}
            """,
        "screens/m.json": """
            {"screen": "m", "root": {"type": "box", "id": "root", "children": [
              {"type": "label", "id": "title", "meta": {"text": {"key": "title", "type": "localized_string"}},
               "constraints": ["top == safe_area.top + 10", "left == parent.left + 16"]},
              {"type": "button", "id": "buy", "action": "buy", "meta": {"title": {"localized_string": "cart", "args": {"count": 2}}},
               "constraints": ["top == prev.bottom + 8", "right == parent.right - 20"]},
              {"type": "box", "id": "panel", "constraints": ["top == prev.bottom + 8", "left == parent.left + 40", "width == 200", "height == 100"], "children": [
                {"type": "label", "id": "inner", "meta": {"text": "Inside"}, "constraints": ["top == parent.top + 4", "left == parent.left + 8"]}
              ]}
            ]}}
            """,
    ]

    func project(_ extra: [String: String] = [:]) throws -> URL {
        let root = try Host.temporaryFolder("l10n")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        var files = Self.files
        for (k, v) in extra { files[k] = v }
        try Host.write(files, under: root)
        return root
    }

    /// The text prop of each child of the root, by id.
    func texts(_ r: HostResult) throws -> [String: String] {
        let o = try r.jsonObject()
        var out: [String: String] = [:]
        for c in TreeJSON.components(o["tree"]) {
            let props = c["props"] as? [String: Any] ?? [:]
            if let id = c["id"] as? String, let t = (props["text"] ?? props["title"]) as? String { out[id] = t }
        }
        return out
    }

    func run(_ root: URL, _ screen: String, _ extra: [String]) throws -> HostResult {
        try Host.run(["run", "screens/\(screen).json", "--user", "u", "--no-graph", "--format", "json"] + extra, directory: root)
    }

    func testThreeLocalesWithPluralsAndFallbacks() throws {
        let root = try project()
        let expected: [String: [String: String]] = [
            "en": ["greeting": "Hello, Ada!", "cart0": "Your cart is empty", "cart1": "1 item in your cart",
                   "cart2": "2 items in your cart", "cart3": "3 items in your cart", "cart11": "11 items in your cart",
                   "title": "Movies", "banner": "Tonight's new releases are here", "missing": "nowhere"],
            // nb-NO → nb (no nb-NO file) → en for the banner.
            "nb-NO": ["greeting": "Hei, Ada!", "cart0": "Handlekurven er tom", "cart1": "1 vare i handlekurven",
                      "cart2": "2 varer i handlekurven", "cart3": "3 varer i handlekurven", "cart11": "11 varer i handlekurven",
                      "title": "Filmer", "banner": "Tonight's new releases are here", "missing": "nowhere"],
            // Arabic's six categories: zero, one, two, few (3), many (11).
            "ar": ["greeting": "مرحبا، Ada!", "cart0": "السلة فارغة", "cart1": "عنصر واحد", "cart2": "عنصران",
                   "cart3": "3 عناصر", "cart11": "11 عنصرًا", "title": "أفلام",
                   "banner": "Tonight's new releases are here", "missing": "nowhere"],
        ]
        for (locale, want) in expected {
            let r = try run(root, "s", ["--locale", locale])
            assertExit(r, 0)
            XCTAssertEqual(try texts(r), want, locale)
        }
        // No locale asked: the default locale; a profile's `locale` attribute; --context.
        XCTAssertEqual(try texts(try run(root, "s", []))["greeting"], "Hello, Ada!")
        let norsk = try Host.run(["run", "screens/s.json", "--user", "norsk", "--no-graph", "--format", "json"], directory: root)
        XCTAssertEqual(try texts(norsk)["cart1"], "1 vare i handlekurven")
        XCTAssertEqual(try texts(try run(root, "s", ["--context", "locale=ar"]))["cart2"], "عنصران")
        // A locale without a table falls back to the default.
        XCTAssertEqual(try texts(try run(root, "s", ["--locale", "fr-CA"]))["title"], "Movies")
        // Fallbacks are reported as notes at the node: nb-NO's banner comes from en; fr-CA has
        // no strings at all (one note); en itself has none.
        let nb = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--locale", "nb-NO"], directory: root)
        assertContains(nb.stderr, "screens/s.json:9:3: note: no message for the key 'banner' in locale nb-NO (looked in nb): en's shows (fallback)", in: nb, "stderr")
        assertLacks(nb.stderr, "key 'title' in locale nb-NO", in: nb, "stderr")
        let fr = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--locale", "fr-CA"], directory: root)
        XCTAssertEqual(fr.stderr.components(separatedBy: "note: locale fr-CA has no strings file: the messages of en show (fallback)").count, 2, fr.transcript)
        let en = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph"], directory: root)
        assertLacks(en.stderr, "(fallback)", in: en, "stderr")
    }

    /// `host eval --locale` and `host matrix --locale` set every user's `locale` attribute, over a
    /// user's own, as `host run --locale` sets it over a profile's: the strings and the rules that
    /// read `locale` follow, the same at any --jobs (the plans' fast path included); without it
    /// each user keeps their own. A tag with no strings is an error, a bad tag a usage error.
    func testEvalAndMatrixTakeALocaleForEveryUser() throws {
        let root = try project([
            "screens/r.json": """
                {"screen": "r", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "title", "meta": {"text": {"key": "title", "type": "localized_string"}}},
                  {"type": "label", "id": "norsk_only", "rule": {"equals": {"locale": "nb"}}, "meta": {"text": "Hei"}}
                ]}}
                """,
            "pop.jsonl": """
                {"name": "a", "tier": "x"}
                {"name": "b", "locale": "ar"}
                {"name": "c", "locale": "nb"}

                """,
        ])
        func eval(_ extra: [String]) throws -> HostResult {
            let r = try Host.run(["eval", "screens/r.json", "--users", "pop.jsonl"] + extra, directory: root)
            assertExit(r, 0)
            return r
        }
        func titles(_ r: HostResult) -> [String] {
            r.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                return TreeJSON.components(o["tree"]).first { $0["id"] as? String == "title" }.flatMap { ($0["props"] as? [String: Any])?["text"] as? String }
            }
        }
        // Each user's own locale (none: the default), then nb for all.
        XCTAssertEqual(titles(try eval(["--select", "tree"])), ["Movies", "أفلام", "Filmer"])
        XCTAssertEqual(titles(try eval(["--select", "tree", "--locale", "nb-NO", "-j", "2"])), ["Filmer", "Filmer", "Filmer"])
        let own = try eval(["-j", "1"]).stdout
        XCTAssertEqual(own.components(separatedBy: "norsk_only").count, 2, own)
        let one = try eval(["--locale", "nb", "-j", "1"]).stdout
        XCTAssertEqual(one.components(separatedBy: "norsk_only").count, 4, one)
        XCTAssertEqual(try eval(["--locale", "nb", "-j", "2"]).stdout, one)
        // As host run: --locale over a profile's own locale (users.json's norsk is nb-NO).
        let profiles = try Host.run(["eval", "screens/r.json", "--users", "users.json", "--locale", "ar", "--select", "tree"], directory: root)
        XCTAssertEqual(titles(profiles), ["أفلام", "أفلام"], profiles.transcript)
        let run = try Host.run(["run", "screens/r.json", "--user", "norsk", "--locale", "ar", "--no-graph", "--format", "json"], directory: root)
        XCTAssertEqual(try texts(run)["title"], "أفلام")
        // host matrix: one segment of locale nb holding every user.
        let m = try Host.run(["matrix", "screens/r.json", "--users", "pop.jsonl", "--by", "locale", "--locale", "nb", "--format", "json"], directory: root)
        assertExit(m, 0)
        let segments = try m.jsonObject()["segments"] as? [[String: Any]] ?? []
        XCTAssertEqual(segments.map { ($0["segment"] as? [String: Any])?["locale"] as? String }, ["nb"], m.transcript)
        XCTAssertEqual(segments.first?["users"] as? Int, 3, m.transcript)
        // A tag with no strings of its language is an error naming the project's locales.
        for command in ["eval", "matrix"] {
            let fr = try Host.run([command, "screens/r.json", "--users", "pop.jsonl", "--locale", "fr"], directory: root)
            assertExit(fr, 1)
            assertContains(fr.stderr, "error: --locale 'fr': the project has no strings for that language (its locales: ar, en, nb, en-XA, ar-XB)", in: fr, "stderr")
            // Not 'ar': another language, not a typo of one.
            assertLacks(fr.stderr, "did you mean", in: fr, "stderr")
            let typo = try Host.run([command, "screens/r.json", "--users", "pop.jsonl", "--locale", "nbb"], directory: root)
            assertExit(typo, 1)
            assertContains(typo.stderr, "did you mean 'nb'?", in: typo, "stderr")
            assertExit(try Host.run([command, "screens/r.json", "--users", "pop.jsonl", "--locale", "no good"], directory: root), 64)
        }
        // A pseudo-locale is always known.
        XCTAssertEqual(titles(try eval(["--select", "tree", "--locale", "en-XA"])).count, 3)
    }

    func testMissingKeysAndBadMessagesAreLocatedWarnings() throws {
        let root = try project()
        let r = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--locale", "nb-NO"], directory: root)
        assertExit(r, 0)
        assertContains(r.stderr, "screens/s.json:10:3: warning: no message for the key 'nowhere' in locale nb-NO (looked in nb, en): the key shows", in: r, "stderr")
        assertContains(r.stderr, "strings/nb.json:5:14: warning: the message of 'broken' does not parse: the plural 'count' has no 'other' case (ICU requires one); the key shows instead", in: r, "stderr")
        assertContains(r.stdout, #"label #missing  Label  text="nowhere""#, in: r, "stdout")
        // The tables looked in are named as their files are (nb-NO.json), not lower-cased
        // (found trying the feature as a new user: "looked in nb-no, en").
        let region = try project(["strings/nb-NO.json": #"{"title": "Filmer"}"#])
        let rr = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--locale", "nb-NO"], directory: region)
        assertContains(rr.stderr, "warning: no message for the key 'nowhere' in locale nb-NO (looked in nb-NO, nb, en): the key shows", in: rr, "stderr")
        assertLacks(rr.stderr, "nb-no", in: rr, "stderr")
        // A bad --locale is a usage error; a bad default_locale an error at it.
        assertExit(try Host.run(["run", "screens/s.json", "--locale", "no good"], directory: root), 64)
        let bad = try project(["loom.json": #"{"name": "l10n", "default_locale": 5}"#])
        let b = try Host.run(["run", "screens/s.json", "--no-graph"], directory: bad)
        assertContains(b.stderr, #"loom.json:1:36: error: "default_locale" is a locale tag"#, in: b, "stderr")
    }

    func testPseudoAccentedLocaleFindsTheTruncation() throws {
        let root = try project()
        let args = ["run", "screens/s.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-se-1st"]
        let en = try Host.run(args, directory: root)
        assertExit(en, 0)
        XCTAssertFalse(en.stdout.contains("truncated"), en.transcript)
        let xa = try Host.run(args + ["--locale", "en-XA"], directory: root)
        assertExit(xa, 0)
        assertContains(xa.stdout, #"text="[Ṁöṽîéš one]""#, in: xa, "stdout")
        assertMatches(xa.stdout, #"truncated root/children\[7\]: the text of #banner .* is truncated"#, in: xa, "stdout")
        // host check's layout findings follow each profile's locale.
        let checked = try project(["users.json": #"{"u": {"tier": "x"}, "pseudo": {"locale": "en-XA"}}"#])
        let c = try Host.run(["check"], directory: checked)
        assertContains(c.stderr + c.stdout, "screens/s.json:9:3: warning: truncated: the text of #banner (root/children[7]) is truncated: it needs 2 lines and has 1 at width 320 (profile 'pseudo' on iphone-se-1st)", in: c)
        XCTAssertFalse((c.stderr + c.stdout).contains("profile 'u' on iphone-se-1st); fix: set its style's 'lines'"), c.transcript)
    }

    /// loom.json's "locales": host check runs its matrix in each locale for every profile, so
    /// the en-XA truncation is found for a profile with no locale of its own; a bad tag is an
    /// error at it.
    func testCheckRunsTheMatrixInTheProjectsLocales() throws {
        let plain = try project()
        let before = try Host.run(["check"], directory: plain)
        XCTAssertFalse((before.stderr + before.stdout).contains("truncated"), before.transcript)
        let root = try project(["loom.json": #"{"name": "l10n", "default_locale": "en", "locales": ["en", "en-XA"]}"#])
        let c = try Host.run(["check"], directory: root)
        let out = c.stderr + c.stdout
        assertContains(out, "screens/s.json:9:3: warning: truncated: the text of #banner (root/children[7]) is truncated: it needs 2 lines and has 1 at width 320 (no user, profiles 'u', 'norsk' on iphone-se-1st in en-XA)", in: c)
        XCTAssertFalse(out.contains("on iphone-se-1st in en)"), c.transcript)
        let bad = try project(["loom.json": #"{"name": "l10n", "locales": ["en", "not a tag", "en"]}"#])
        let b = try Host.run(["check"], directory: bad)
        XCTAssertNotEqual(b.status, 0, b.transcript)
        assertContains(b.stderr + b.stdout, "loom.json:1:36: error: \"locales\" lists locale tags such as \"en\" or \"nb-NO\", found 'not a tag'", in: b)
        assertContains(b.stderr + b.stdout, "locale 'en' is listed twice in \"locales\"", in: b)
    }

    /// Every frame under ar-XB is the en frame mirrored: x′ = width − x − w, the rest equal.
    func testRightToLeftPseudoLocaleMirrorsEveryFrame() throws {
        let root = try project()
        for screen in ["m", "s"] {
            for device in ["iphone-se-1st", "ipad"] {
                func frames(_ locale: String) throws -> (Double, [String: [String: Double]]) {
                    let r = try run(root, screen, ["--layout", "--device", device, "--locale", locale])
                    assertExit(r, 0)
                    let o = try r.jsonObject()
                    let layout = try XCTUnwrap(o["layout"] as? [String: Any], r.transcript)
                    let width = try XCTUnwrap(layout["width"] as? Double)
                    var out: [String: [String: Double]] = [:]
                    func visit(_ n: Any?, _ path: String) {
                        guard let n = n as? [String: Any] else { return }
                        if let f = n["frame"] as? [String: Double] { out[path] = f }
                        for (i, c) in ((n["children"] as? [Any]) ?? []).enumerated() { visit(c, path + "/\(i)") }
                    }
                    visit(o["tree"], "root")
                    return (width, out)
                }
                let (w, en) = try frames("en")
                let (_, xb) = try frames("ar-XB")
                XCTAssertEqual(Set(en.keys), Set(xb.keys))
                XCTAssertGreaterThan(en.count, 3)
                for (path, f) in en {
                    let g = try XCTUnwrap(xb[path])
                    XCTAssertEqual(g["x"]!, w - f["x"]! - f["width"]!, accuracy: 1e-9, "\(screen) \(device) \(path)")
                    XCTAssertEqual(g["y"], f["y"]); XCTAssertEqual(g["width"], f["width"]); XCTAssertEqual(g["height"], f["height"])
                }
            }
        }
        // Arabic itself is right to left too.
        let ar = try Host.run(["run", "screens/m.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-se-1st", "--locale", "ar"], directory: root)
        assertMatches(ar.stdout, #"box #panel  Box  @ 80,"#, in: ar, "stdout")
    }

    func testScenarioOpensWithALocale() throws {
        let root = try project(["scenarios/l10n.lua": """
            scenario("norwegian and arabic", function(t)
              local s = t:open("s", { user = "u", locale = "nb-NO" })
              s:expect_prop("greeting", "text", "Hei, Ada!")
              s:expect_prop("cart3", "text", "3 varer i handlekurven")
              local m = t:open("m", { user = "u", locale = "ar-XB", device = "iphone-se-1st" })
              m:expect_frame("panel", { x = 80, width = 200 })
            end)
            scenario("a bad locale", function(t)
              expect_error(function() t:open("s", { locale = 5 }) end, "options.locale must be a locale tag")
            end)
            """])
        let r = try Host.run(["test"], directory: root)
        assertExit(r, 0)
        assertContains(r.stdout, "2 passed", in: r, "stdout")
    }

    func testServeTakesTheLocaleFromTheQueryOrTheBody() throws {
        let root = try project()
        let server = try ServeCommandTests.Server(["--project", root.path])
        let expected = try Host.run(["run", root.path + "/screens/s.json", "--user", "u", "--locale", "nb-NO", "--format", "json", "--no-graph"])
        let got = try server.call("/v1/screens/s?profile=u&locale=nb-NO")
        XCTAssertEqual(got.status, 200, got.body)
        XCTAssertEqual(got.body, expected.stdout)
        let posted = try server.call("/v1/screens/s", method: "POST", body: #"{"profile": "u", "locale": "nb-NO"}"#)
        XCTAssertEqual(posted.body, expected.stdout)
        let bad = try server.call("/v1/screens/s", method: "POST", body: #"{"locale": 5}"#)
        XCTAssertEqual(bad.status, 422, bad.body)
        let badQuery = try server.call("/v1/screens/s?locale=a%20b")
        XCTAssertEqual(badQuery.status, 422, badQuery.body)
    }

    /// Without a strings folder and without a locale, a localized string shows its key as before.
    func testNoStringsNoChange() throws {
        let root = try project()
        try FileManager.default.removeItem(at: root.appendingPathComponent("strings"))
        try Data(#"{"name": "l10n"}"#.utf8).write(to: root.appendingPathComponent("loom.json"))
        let r = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph"], directory: root)
        assertExit(r, 0)
        assertContains(r.stdout, #"label #title  Label  text_key="title""#, in: r, "stdout")
        XCTAssertEqual(r.stderr, "")
    }
}
