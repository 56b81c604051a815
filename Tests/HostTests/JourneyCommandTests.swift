import Foundation
import XCTest

/// `host journeys` on a small shop (written here, not the sample app): verdicts per profile and
/// per population group, the exact shortest counterexamples (with the rule that hid an action),
/// generated scenarios that pass under `host test`, journeys inside `host test`, and located
/// errors for a bad journeys.json.
final class JourneyCommandTests: XCTestCase {
    /// home: browse (everyone), lounge (is_gold), an express stack (country NO) holding a
    /// checkout button; browse → product:7 → cart → checkout, the cart's checkout button hidden
    /// from banned users.
    static let files: [String: String] = [
        "loom.json": #"{"name": "shop", "entry": "main", "rules": {"is_gold": {"equals": {"tier": "gold"}}, "is_banned": {"equals": {"banned": true}}}}"#,
        "users.json": """
            {"gold_no": {"tier": "gold", "country": "NO"}, "gold_se": {"tier": "gold", "country": "SE"},
             "free": {"tier": "free", "country": "SE"}, "banned": {"tier": "free", "country": "SE", "banned": true}}
            """,
        "flows.json": """
            {"flows": {"main": {"presentation": "stack", "start": "home", "steps": {
              "browse": {"push": "browse"}, "product": {"push": "product"}, "cart": {"push": "cart"},
              "checkout": {"push": "checkout"}, "lounge": {"push": "lounge"}}}}}
            """,
        "screens/home.json": """
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "browse", "meta": {"title": "Browse"}, "action": "browse"},
              {"type": "button", "id": "lounge", "rule": "is_gold", "meta": {"title": "Lounge"}, "action": "lounge"},
              {"type": "stack", "id": "express", "rule": {"equals": {"country": "NO"}}, "children": [
                {"type": "button", "id": "express_buy", "meta": {"title": "Buy now"}, "action": "checkout"}]}
            ]}}
            """,
        "screens/browse.json": """
            {"screen": "browse", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "p7", "meta": {"title": "Product 7"}, "action": "product:7"}]}}
            """,
        "screens/product.json": """
            {"screen": "product", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "add", "meta": {"title": "Cart"}, "action": "cart"}]}}
            """,
        "screens/cart.json": """
            {"screen": "cart", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "pay", "rule": {"NOT": "is_banned"}, "meta": {"title": "Checkout"}, "action": "checkout"}]}}
            """,
        "screens/checkout.json": #"{"screen": "checkout", "root": {"type": "label", "id": "done", "meta": {"text": "Paid"}}}"#,
        "screens/lounge.json": #"{"screen": "lounge", "root": {"type": "label", "id": "l", "meta": {"text": "Lounge"}}}"#,
        "journeys.json": """
            [
              {"name": "gold reaches checkout", "users": "is_gold", "from": "home", "reach": "checkout", "within": 3},
              {"name": "free never sees the lounge", "users": {"NOT": "is_gold"}, "from": "home", "never": "lounge"},
              {"name": "everyone reaches checkout", "from": "home", "reach": "checkout"},
              {"name": "gold never checks out in one tap", "users": "is_gold", "from": "home", "never": "checkout", "within": 1}
            ]
            """,
        "population.jsonl": """
            {"name": "u1", "tier": "gold", "country": "NO"}
            {"name": "u2", "tier": "free", "country": "SE"}
            {"name": "u3", "tier": "gold", "country": "NO"}
            {"tier": "free", "country": "DK"}
            {"name": "u5", "tier": "free", "country": "SE", "banned": true}
            """,
    ]

    func project() throws -> URL {
        let root = try Host.temporaryFolder("journeys")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write(JourneyCommandTests.files, under: root)
        return root
    }

    /// journey name → segment → (verdict, taps, path as "from -action-> to …").
    func verdicts(_ r: HostResult) throws -> [String: [String: (String, Int, String)]] {
        var out: [String: [String: (String, Int, String)]] = [:]
        for j in try r.jsonObject()["journeys"] as? [[String: Any]] ?? [] {
            var segs: [String: (String, Int, String)] = [:]
            for s in j["segments"] as? [[String: Any]] ?? [] {
                let path = (s["path"] as? [[String: Any]] ?? []).map { "\($0["from"]!) -\($0["action"]!)-> \($0["to"]!)" }
                segs[s["segment"] as! String] = (s["verdict"] as! String, s["taps"] as! Int, path.joined(separator: " "))
            }
            out[j["name"] as! String] = segs
        }
        return out
    }

    func testVerdictsPerProfileWithShortestCounterexamples() throws {
        let p = try project()
        let r = try Host.run(["journeys", "--project", p.path, "--format", "json"])
        assertExit(r, 1)
        let v = try verdicts(r)
        let gold = try XCTUnwrap(v["gold reaches checkout"], r.transcript)
        XCTAssertEqual(Set(gold.keys), ["gold_no", "gold_se"], r.stdout)
        XCTAssertEqual(gold["gold_no"]!.0, "pass")
        XCTAssertEqual(gold["gold_no"]!.2, "home -checkout-> checkout")
        // Gold in Sweden has no express stack: 4 taps, more than 3.
        XCTAssertEqual(gold["gold_se"]!.0, "fail")
        XCTAssertEqual(gold["gold_se"]!.1, 4)
        XCTAssertEqual(gold["gold_se"]!.2, "home -browse-> browse browse -product:7-> product product -cart-> cart cart -checkout-> checkout")

        let lounge = try XCTUnwrap(v["free never sees the lounge"])
        XCTAssertEqual(Set(lounge.keys), ["free", "banned"])
        XCTAssertEqual(lounge["free"]!.0, "pass")
        XCTAssertEqual(lounge["banned"]!.0, "pass")

        let everyone = try XCTUnwrap(v["everyone reaches checkout"])
        XCTAssertEqual(Set(everyone.keys), ["gold_no", "gold_se", "free", "banned"])
        XCTAssertEqual(everyone["free"]!.0, "pass")
        XCTAssertEqual(everyone["free"]!.1, 4)
        // Banned users: both ways to checkout are hidden; the path with the fewest hidden taps,
        // then the fewest taps, is the express button on home, hidden by the country rule.
        XCTAssertEqual(everyone["banned"]!.0, "fail")
        XCTAssertEqual(everyone["banned"]!.2, "home -checkout-> checkout")
        let json = try r.jsonObject()["journeys"] as! [[String: Any]]
        let banned = (json[2]["segments"] as! [[String: Any]]).first { $0["segment"] as? String == "banned" }!
        let hidden = try XCTUnwrap(banned["hidden"] as? [String: Any], r.stdout)
        let by = try XCTUnwrap(hidden["hidden_by"] as? [String: Any])
        XCTAssertEqual(by["path"] as? String, "root/children[2]", r.stdout)
        assertContains(by["reason"] as? String ?? "", "is false", in: r, "the reason")
        assertMatches(by["location"] as? String ?? "", #"screens/home\.json:4:\d+"#, in: r, "the rule's location")

        let oneTap = try XCTUnwrap(v["gold never checks out in one tap"])
        XCTAssertEqual(oneTap["gold_no"]!.0, "fail")
        XCTAssertEqual(oneTap["gold_no"]!.2, "home -checkout-> checkout")
        XCTAssertEqual(oneTap["gold_se"]!.0, "pass")

        // Text: the same verdicts, deterministic.
        let t = try Host.run(["journeys", "--project", p.path])
        assertExit(t, 1)
        // …and the express button, hidden from Sweden, would make it in one.
        assertContains(t.stdout, "✗ gold_se: 'checkout' takes 4 taps, more than 3; 1 tap through action 'checkout' on screen 'home', which is hidden (rule", in: t)
        assertContains(t.stdout, "path: home -browse-> browse -product:7-> product -cart-> cart -checkout-> checkout", in: t)
        assertContains(t.stdout, "✗ banned: 'checkout' is not reachable: action 'checkout' on screen 'home' is hidden", in: t)
        assertContains(t.stdout, "4 journeys, 4 segments: 7 passed, 3 failed", in: t)
        XCTAssertEqual(try Host.run(["journeys", "--project", p.path]).stdout, t.stdout)
    }

    /// The sample app's journeys pass (host test runs them too).
    func testSampleAppJourneysPass() throws {
        let r = try Host.run(["journeys", "--project", Host.moviesProject, "--format", "json"])
        assertExit(r, 0)
        let v = try verdicts(r)
        XCTAssertEqual(v["loyal gold members reach the lounge in one tap"]?["gold"]?.2, "home -premium-> premium_lounge", r.stdout)
        XCTAssertEqual(v["loyal gold members reach the lounge in one tap"]?["gold_at_risk"] == nil, true, "gold at risk is not selected\n\(r.stdout)")
        XCTAssertEqual(v["everyone reaches a movie's cast in two taps"]?["guest"]?.2,
                       "home -movie:42-> movie_detail movie_detail -cast:10205-> cast_detail", r.stdout)
        XCTAssertEqual(Set(v["free users never see the lounge"]?.keys.map { $0 } ?? []), ["free", "guest"], r.stdout)
    }

    func testOnlyPassingJourneysExitZero() throws {
        let p = try project()
        try Host.write(["journeys.json": #"[{"name": "free never sees the lounge", "users": {"NOT": "is_gold"}, "from": "home", "never": "lounge"}]"#], under: p)
        let r = try Host.run(["journeys", "--project", p.path])
        assertExit(r, 0)
        assertContains(r.stdout, "1 journey, 4 segments: 2 passed, 0 failed", in: r)
    }

    func testPopulationGroupedByIdenticalGraphs() throws {
        let p = try project()
        let r = try Host.run(["journeys", "--project", p.path, "--users", p.appendingPathComponent("population.jsonl").path, "--format", "json"])
        assertExit(r, 1)
        let o = try r.jsonObject()
        // u1 and u3 (gold, NO) walk the same graphs; u2 and the DK user (free, no express) too; u5 is banned.
        XCTAssertEqual((o["summary"] as? [String: Any])?["segments"] as? Int, 3, r.stdout)
        let v = try verdicts(r)
        XCTAssertEqual(v["gold reaches checkout"]?["2 users like u1"]?.0, "pass", r.stdout)
        XCTAssertEqual(v["everyone reaches checkout"]?["2 users like u2"]?.0, "pass", r.stdout)
        XCTAssertEqual(v["everyone reaches checkout"]?["u5"]?.0, "fail", r.stdout)
        XCTAssertEqual(v["free never sees the lounge"]?["u5"]?.0, "pass", r.stdout)
        // A line that is not JSON: a located error, exit 1; a missing file: only the error.
        try Host.write(["bad.jsonl": "{\"tier\": \"gold\"}\nnot json\n"], under: p)
        let bad = try Host.run(["journeys", "--project", p.path, "--users", p.appendingPathComponent("bad.jsonl").path])
        assertExit(bad, 1)
        assertMatches(bad.stderr, #"bad\.jsonl:2:1: error: "#, in: bad, "stderr")
        let missing = try Host.run(["journeys", "--project", p.path, "--users", p.appendingPathComponent("nope.jsonl").path])
        assertExit(missing, 1)
        XCTAssertEqual(missing.stdout, "", missing.transcript)
        assertContains(missing.stderr, "cannot read users from", in: missing, "stderr")
    }

    func testGeneratedScenariosPassUnderHostTest() throws {
        let p = try project()
        // Only journeys whose walks are real paths (host test runs the journeys too: all pass here).
        try Host.write(["journeys.json": """
            [{"name": "gold reaches checkout", "users": "is_gold", "from": "home", "reach": "checkout"},
             {"name": "free never sees the lounge", "users": {"NOT": "is_gold"}, "from": "home", "never": "lounge"},
             {"name": "banned cannot check out", "users": "is_banned", "from": "home", "never": "checkout"}]
            """], under: p)
        let dir = p.appendingPathComponent("scenarios/journeys")
        let g = try Host.run(["journeys", "--project", p.path, "--generate", dir.path])
        assertExit(g, 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(files, [
            "journey_banned_cannot_check_out__banned.lua",
            "journey_free_never_sees_the_lounge__banned.lua", "journey_free_never_sees_the_lounge__free.lua",
            "journey_gold_reaches_checkout__gold_no.lua", "journey_gold_reaches_checkout__gold_se.lua",
        ], g.transcript)
        let se = try String(contentsOf: dir.appendingPathComponent("journey_gold_reaches_checkout__gold_se.lua"), encoding: .utf8)
        assertContains(se, #"s:tap("product:7")"#, in: g, "the generated scenario")
        assertContains(se, #"s:expect_screen("checkout")"#, in: g, "the generated scenario")
        let t = try Host.run(["test", "--project", p.path, "--jobs", "1"])
        assertExit(t, 0)
        assertContains(t.stdout, "✓ journey gold reaches checkout [gold_se]", in: t)
        assertContains(t.stdout, "journeys: 5 passed, 0 failed", in: t)
        assertContains(t.stdout, "5 passed", in: t)
    }

    /// A journey name is project text written into a generated Lua file: a line break, terminal
    /// codes or a right-to-left override must not become code, drive a terminal that shows the
    /// file, or make its comment display as other code ("Trojan Source").
    func testGeneratedScenarioKeepsAHostileNameInert() throws {
        let p = try project()
        let journeys = #"[{"name": "gold\nos.exit(3) -- \u001b[2J\u0007\u202eevil\u2028x", "users": "is_gold", "from": "home", "reach": "checkout"}]"#
        try Host.write(["journeys.json": journeys], under: p)
        let dir = p.appendingPathComponent("scenarios/journeys")
        let g = try Host.run(["journeys", "--project", p.path, "--generate", dir.path])
        assertExit(g, 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || [0x7F, 0x202E, 0x2028].contains($0.value) }, text)
            XCTAssertFalse(text.split(separator: "\n").contains { $0.hasPrefix("os.exit") }, text)
            XCTAssertTrue(text.contains(#"scenario("walks journey gold\010os.exit(3) -- \027[2J\007"#), text)
        }
        let t = try Host.run(["test", "--project", p.path, "--jobs", "1"])
        assertContains(t.stdout, "journeys: ", in: t)
        XCTAssertFalse(t.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, t.transcript)
    }

    func testHostTestFailsOnAFailingJourney() throws {
        let p = try project()
        let t = try Host.run(["test", "--project", p.path, "--jobs", "1"])
        assertExit(t, 1)
        assertContains(t.stdout, "✗ journey everyone reaches checkout [banned]", in: t)
        assertContains(t.stdout, "hidden by: rule", in: t)
        assertContains(t.stdout, "journeys: 7 passed, 3 failed", in: t)
    }

    /// `host test --junit` and `--json` report the journeys with the scenarios: one result per
    /// journey and segment, in journeys.json's testsuite, failures with their path.
    func testJourneysAreInTheJUnitAndJSONReports() throws {
        let p = try project()
        let junit = p.appendingPathComponent("report.xml"), json = p.appendingPathComponent("report.json")
        let t = try Host.run(["test", "--project", p.path, "--jobs", "1", "--junit", junit.path, "--json", json.path])
        assertExit(t, 1)
        let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let results = try XCTUnwrap(o["results"] as? [[String: Any]])
        let journeys = results.filter { ($0["name"] as? String ?? "").hasPrefix("journey ") }
        XCTAssertEqual(journeys.count, 10, t.transcript)
        XCTAssertEqual(journeys.filter { $0["status"] as? String == "failed" }.count, 3)
        XCTAssertEqual(journeys.filter { $0["status"] as? String == "passed" }.count, 7)
        XCTAssertTrue(journeys.allSatisfy { ($0["file"] as? String ?? "").hasSuffix("journeys.json") && ($0["line"] as? Int ?? 0) > 0 })
        let banned = try XCTUnwrap(journeys.first { $0["name"] as? String == "journey everyone reaches checkout [banned]" })
        assertContains(banned["message"] as? String ?? "", "hidden by: rule", in: t)
        XCTAssertGreaterThanOrEqual(o["failed"] as? Int ?? 0, 3)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        assertContains(xml, "journeys.json", in: t)
        assertContains(xml, #"<testcase name="journey everyone reaches checkout [banned]""#, in: t)
        XCTAssertEqual(xml.components(separatedBy: "<testcase name=\"journey ").count - 1, 10, xml)
        XCTAssertEqual(xml.components(separatedBy: "<failure").count - 1 >= 3, true, xml)
    }

    /// `--users FILE`: a record's own `"data"` is applied to the graphs its journeys walk, as
    /// `host eval` applies it: a data-fed list whose items carry the actions reaches the offer
    /// for the declared data and for a user's own offers, not for a user with none; data no
    /// screen declares, or that breaks a binding, is an error naming the user.
    func testAPopulationUsersOwnDataShapesTheGraphsTheJourneysWalk() throws {
        let root = try Host.temporaryFolder("journey-data")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "journey-data"}"#,
            "flows.json": #"{"flows": {"main": {"presentation": "stack", "start": "home", "steps": {"offer": {"push": "offer"}}}}}"#,
            "screens/home.json": """
                {"screen": "home", "data": {"offers": {"file": "data/offers.json"}},
                 "root": {"type": "list", "id": "offers",
                          "items": {"$each": "offers", "as": "o",
                                    "template": {"id": {"$format": "offer_{o.id}"}, "title": {"$bind": "o.title"}, "action": {"$format": "offer:{o.id}"}}}}}
                """,
            "screens/offer.json": #"{"screen": "offer", "root": {"type": "label", "id": "l", "meta": {"text": "Offer"}}}"#,
            "data/offers.json": #"[{"id": 1, "title": "One"}]"#,
            "journeys.json": #"[{"name": "reach an offer", "from": "home", "reach": "offer", "within": 1}]"#,
            "pop.jsonl": """
                {"name": "declared"}
                {"name": "none", "data": {"offers": []}}
                {"name": "two", "data": {"offers": [{"id": 2, "title": "Two"}]}}
                {"name": "also_declared", "data": {"offers": [{"id": 1, "title": "One"}]}}
                {"name": "bad", "data": {"ofers": []}}
                {"name": "worse", "data": {"offers": [{"id": 3}]}}

                """,
        ], under: root)
        let r = try Host.run(["journeys", "--users", "pop.jsonl", "--format", "json"], directory: root)
        assertExit(r, 1)
        let journeys = try r.jsonObject()["journeys"] as? [[String: Any]] ?? []
        let segments = journeys.first?["segments"] as? [[String: Any]] ?? []
        XCTAssertEqual(segments.map { "\($0["segment"] ?? "") \($0["verdict"] ?? "")" },
                       ["2 users like declared pass", "none fail", "two pass"], r.transcript)
        let paths = segments.map { (($0["path"] as? [[String: Any]]) ?? []).map { $0["action"] as? String ?? "" } }
        XCTAssertEqual(paths, [["offer:1"], [], ["offer:2"]], r.transcript)
        assertContains(r.stderr, "pop.jsonl:5:35: error: user bad: its data cannot be used: data 'ofers' was given, but no screen of the project declares a data source of that name; did you mean 'offers'?", in: r, "stderr")
        assertContains(r.stderr, "error: user worse: its data cannot be used: $bind: o has no field 'title'", in: r, "stderr")
        // Without --users (the profiles, which bring no data): the declared data, as before.
        let profiles = try Host.run(["journeys"], directory: root)
        assertExit(profiles, 0)
        // A generated scenario opens the screen with the segment's data, so it walks offer:2.
        try Host.write(["two.jsonl": #"{"name": "two", "data": {"offers": [{"id": 2, "title": "Two"}]}}"# + "\n"], under: root)
        let g = try Host.run(["journeys", "--users", "two.jsonl", "--generate", "scenarios/generated"], directory: root)
        assertExit(g, 0)
        let t = try Host.run(["test"], directory: root)
        assertContains(t.stdout, "1 passed, 0 failed", in: t)
    }

    /// A journey with a format error still has its screens and rules checked in the same run
    /// (not only once the format error is fixed); a misspelt key that stands for a missing one
    /// is one error at the misspelling, not a second "needs" error that fixing it also fixes.
    func testFormatErrorsAndUnknownScreensAreReportedTogether() throws {
        let p = try project()
        try Host.write(["journeys.json": """
            [{"name": "a", "from": "hom", "reach": "checkot", "within": -1},
             {"name": "b", "form": "home", "reach": "lounge", "users": "is_goldd"},
             {"from": "hme", "never": "checkout"},
             {"name": "c", "from": "home", "reahc": "checkout"}]
            """], under: p)
        for command in ["journeys", "check"] {
            let r = try Host.run([command, "--project", p.path])
            assertExit(r, 1)
            for pattern in [
                #"journeys\.json:1:24: error: journey 'a': no screen 'hom'; did you mean 'home'\?"#,
                #"journeys\.json:1:40: error: journey 'a': no screen 'checkot'; did you mean 'checkout'\?"#,
                #"journeys\.json:1:\d+: error: "within" is a number of taps"#,
                #"journeys\.json:2:16: error: unknown key 'form' in a journey; expected name, users, from, reach, never, within; did you mean 'from'\? \(without it the journey has no "from"\)"#,
                #"journeys\.json:2:\d+: error: journey 'b': unknown rule 'is_goldd' in "users"; did you mean 'is_gold'\?"#,
                #"journeys\.json:3:2: error: a journey needs a "name""#,
                #"journeys\.json:3:11: error: a journey: no screen 'hme'; did you mean 'home'\?"#,
                #"journeys\.json:4:\d+: error: unknown key 'reahc' in a journey; .*did you mean 'reach'\? \(without it the journey has no "reach"\)"#,
            ] {
                assertMatches(r.stderr, pattern, in: r, "stderr")
            }
            assertLacks(r.stderr, "journey 'b' needs a \"from\"", in: r, "stderr")
            assertLacks(r.stderr, "journey 'c' needs \"reach\"", in: r, "stderr")
        }
    }

    func testBadJourneysFileIsLocated() throws {
        let p = try project()
        try Host.write(["journeys.json": """
            [{"name": "a", "from": "hom", "reach": "checkout"},
             {"name": "b", "from": "home"},
             {"name": "c", "from": "home", "reach": "checkout", "within": -1},
             {"name": "d", "from": "home", "reach": "checkot", "users": "is_goldd"},
             {"name": "e", "from": "home", "reach": "checkout", "users": {"AND": []}},
             {"name": "f", "from": "home", "reach": "checkout", "never": "lounge", "whithin": 2},
             {"name": "a", "from": "home", "reach": "checkout"},
             3]
            """], under: p)
        let r = try Host.run(["journeys", "--project", p.path])
        assertExit(r, 1)
        for pattern in [
            #"journeys\.json:1:24: error: journey 'a': no screen 'hom'; did you mean 'home'\?"#,
            #"journeys\.json:2:2: error: journey 'b' needs "reach" \(a screen it gets to\) or "never""#,
            #"journeys\.json:3:63: error: "within" is a number of taps, a whole number from 0 to 1000000, found -1"#,
            #"journeys\.json:4:41: error: journey 'd': no screen 'checkot'; did you mean 'checkout'\?"#,
            #"journeys\.json:4:61: error: journey 'd': unknown rule 'is_goldd' in "users"; did you mean 'is_gold'\?"#,
            #"journeys\.json:5:70: error: 'AND' needs at least one rule"#,
            #"journeys\.json:6:53: error: journey 'f' has both "reach" and "never""#,
            #"journeys\.json:6:72: error: unknown key 'whithin' in a journey; expected name, users, from, reach, never, within; did you mean 'within'\?"#,
            #"journeys\.json:7:11: error: journey 'a' is declared twice"#,
            #"journeys\.json:8:2: error: a journey is an object"#,
        ] {
            assertMatches(r.stderr, pattern, in: r, "stderr")
        }
        XCTAssertEqual(r.stdout, "", "nothing left to check: only the errors\n\(r.transcript)")
        // host check reads the file too.
        let c = try Host.run(["check", "--project", p.path])
        assertExit(c, 1)
        assertMatches(c.stderr, #"journeys\.json:1:24: error: journey 'a': no screen 'hom'; did you mean 'home'\?"#, in: c, "stderr")
        // Numbers that are not whole, an empty name.
        try Host.write(["journeys.json": #"[{"name": "x", "from": "home", "reach": "checkout", "within": 2.5}, {"name": "", "from": "home", "never": "lounge"}]"#], under: p)
        let n = try Host.run(["journeys", "--project", p.path])
        assertExit(n, 1)
        assertMatches(n.stderr, #"journeys\.json:1:63: error: "within" is a number of taps, a whole number from 0 to 1000000, found 2\.5"#, in: n, "stderr")
        assertMatches(n.stderr, #"journeys\.json:1:\d+: error: "name" must be a non-empty string, found an empty string"#, in: n, "stderr")
        // Not a list at all.
        try Host.write(["journeys.json": #"{"name": "x"}"#], under: p)
        let o = try Host.run(["journeys", "--project", p.path])
        assertExit(o, 1)
        assertMatches(o.stderr, #"journeys\.json:1:1: error: a journeys file is a list of journeys"#, in: o, "stderr")
        // No journeys file.
        try FileManager.default.removeItem(at: p.appendingPathComponent("journeys.json"))
        let none = try Host.run(["journeys", "--project", p.path])
        assertExit(none, 1)
        assertContains(none.stderr, "no journeys file", in: none, "stderr")
    }
}
