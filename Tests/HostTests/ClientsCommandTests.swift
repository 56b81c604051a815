import Foundation
import XCTest

/// clients.json (docs/clients.md) through the built `host`: a project and population written
/// here (not the sample app), and every count compared with an independent per-user computation
/// done in this file from the same attributes (plain tuple comparisons, no SemVerRange).
final class ClientsCommandTests: XCTestCase {
    static let screen = """
    {"screen": "home", "root": {"type": "vstack", "id": "root", "children": [
      {"type": "label", "id": "title", "meta": {"text": "Hi"}},
      {"type": "carousel", "id": "promos", "rule": {"equals": {"tier": "gold"}}, "items": [{"id": "p1", "title": "P1"}],
       "fallback": {"type": "list", "id": "promos_list", "items": [{"id": "p1l", "title": "P1"}]}},
      {"type": "grid", "id": "tiles", "fallback": "drop", "items": [{"id": "t1", "title": "T"}]},
      {"type": "hstack", "id": "bar", "rule": {"in": {"country": ["NO", "SE"]}}, "children": [{"type": "button", "id": "buy", "meta": {"title": "Buy"}}]}
    ]}}
    """
    static let clients = """
    {"version_attribute": "app_version", "clients": [
      {"versions": ">=5.0.0 <6.2.0", "components": ["vstack", "label", "button", "list"]},
      {"versions": "^6.2.0", "components": ["vstack", "hstack", "label", "button", "list", "grid", "carousel"]}
    ]}
    """
    static let users = """
    {"old_gold": {"tier": "gold", "country": "NO", "app_version": "5.3.0"},
     "new_gold": {"tier": "gold", "country": "SE", "app_version": "6.3.1"},
     "old_free": {"tier": "free", "country": "DK", "app_version": "6.1.9"},
     "beta": {"tier": "gold", "country": "NO", "app_version": "6.2.0-beta.1"},
     "none": {"tier": "free", "country": "NO"}}
    """

    struct User {
        var tier: String
        var country: String
        var version: Any?
        var json: String
    }

    /// A population with versions inside, between and outside the ranges, pre-releases, "v"
    /// prefixes, short forms, numbers and missing versions (a fixed generator: the same each run).
    static func population(_ n: Int) -> [User] {
        var state: UInt64 = 41
        func next(_ k: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(k))
        }
        let odd: [Any] = ["6.2.0-rc.1", "v6.2", "6", "5", "4.9.9", "7.0.0", "6.1.99", "v5.0.0", 5, "5.x", "6.2.0+build.7"]
        return (0..<n).map { i in
            let tier = ["gold", "free"][next(2)], country = ["NO", "SE", "DK"][next(3)]
            let r = next(10)
            let version: Any? = r < 6 ? "\(4 + next(4)).\(next(4)).\(next(3))" : r < 9 ? odd[next(odd.count)] : nil
            var json = #"{"id": "\#(i)", "tier": "\#(tier)", "country": "\#(country)""#
            if let s = version as? String { json += #", "app_version": "\#(s)""# } else if let v = version as? Int { json += #", "app_version": \#(v)"# }
            return User(tier: tier, country: country, version: version, json: json + "}")
        }
    }

    /// The client's index (0, 1) or nil (unknown), computed here without the host's parser: only
    /// plain versions (optional "v", 1 to 3 numbers, optional build) can be in these ranges (no
    /// range names a pre-release).
    static func client(_ version: Any?) -> Int? {
        guard var s = version as? String else { return nil }
        if s.hasPrefix("v") { s.removeFirst() }
        if let plus = s.firstIndex(of: "+") { s = String(s[..<plus]) }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        var v = parts.map { $0! }
        while v.count < 3 { v.append(0) }
        let t = (v[0], v[1], v[2])
        if t >= (5, 0, 0) && t < (6, 2, 0) { return 0 }
        if t >= (6, 2, 0) && t < (7, 0, 0) { return 1 }
        return nil
    }

    /// What the user would receive and their client cannot render: (node, fallback) in order.
    static func expected(_ u: User) -> [(String, String?)] {
        guard client(u.version) != 1 else { return [] }  // 0 and unknown render the same four types
        var out: [(String, String?)] = []
        if u.tier == "gold" { out.append(("promos", "promos_list")) }
        out.append(("tiles", "drop"))
        if u.country != "DK" { out.append(("bar", nil)) }
        return out
    }

    func project() throws -> URL {
        let root = try Host.temporaryFolder("clients")
        try Host.write(["screens/home.json": Self.screen, "clients.json": Self.clients, "users.json": Self.users], under: root)
        return root
    }

    func testEvalListsExactlyTheUnsupportedNodesOfEveryUserAtAnyJobs() throws {
        let root = try project()
        let pop = Self.population(600)
        try Data(pop.map(\.json).joined(separator: "\n").utf8).write(to: root.appendingPathComponent("pop.jsonl"))
        var outputs: [String] = []
        for jobs in ["1", "2"] {
            let r = try Host.run(["eval", "home", "--users", "pop.jsonl", "--select", "unsupported", "--jobs", jobs], directory: root)
            assertExit(r, 0)
            outputs.append(r.stdout)
            let lines = r.stdoutLines.filter { !$0.isEmpty }
            XCTAssertEqual(lines.count, pop.count)
            var receiving = 0
            for (u, line) in zip(pop, lines) {
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let got = try XCTUnwrap(o["unsupported"] as? [[String: Any]])
                let want = Self.expected(u)
                XCTAssertEqual(got.map { $0["node"] as? String }, want.map(\.0), "\(u.json)")
                XCTAssertEqual(got.map { $0["fallback"] as? String }, want.map(\.1), "\(u.json)")
                if !want.isEmpty { receiving += 1 }
            }
            XCTAssertEqual(receiving, pop.filter { !Self.expected($0).isEmpty }.count)
            XCTAssertGreaterThan(receiving, 100)
            XCTAssertLessThan(receiving, pop.count)
        }
        XCTAssertEqual(outputs[0], outputs[1], "--jobs 1 and 2 differ")
        // What they see: the fallback in the node's place, per user.
        let visible = try Host.run(["eval", "home", "--users", "pop.jsonl", "--jobs", "2"], directory: root)
        for (u, line) in zip(pop, visible.stdoutLines.filter { !$0.isEmpty }) {
            let ids = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["visible"] as? [String])
            let modern = Self.client(u.version) == 1
            XCTAssertEqual(ids.contains("promos"), modern && u.tier == "gold", u.json)
            XCTAssertEqual(ids.contains("promos_list"), !modern && u.tier == "gold", u.json)
            XCTAssertEqual(ids.contains("tiles"), modern, u.json)
            XCTAssertEqual(ids.contains("bar"), modern && u.country != "DK", u.json)
        }
    }

    /// Three clients (one rendering the carousel, one only its grid fallback, one only the
    /// list the grid falls back to): `host eval`'s plans per client give, byte for byte, what
    /// resolving every user in full gives (`LOOM_EVAL_NO_PLAN=1`), stdout and the counted
    /// warnings on stderr, at --jobs 1 and 2; and each user sees what their client renders.
    func testEvalPlansPerClientEqualFullResolutionWithThreeClients() throws {
        let root = try Host.temporaryFolder("clients3")
        try Host.write([
            "screens/home.json": """
            {"screen": "home", "root": {"type": "vstack", "id": "root", "children": [
              {"type": "carousel", "id": "promos", "rule": {"equals": {"tier": "gold"}}, "items": [{"id": "p1", "title": "P1"}],
               "fallback": {"type": "grid", "id": "promos_grid", "items": [{"id": "p1g", "title": "P1"}],
                            "fallback": {"type": "list", "id": "promos_list", "items": [{"id": "p1l", "title": "P1"}]}}},
              {"type": "hstack", "id": "bar", "rule": {"in": {"country": ["NO", "SE"]}}, "children": [{"type": "button", "id": "buy", "meta": {"title": "Buy"}}]}
            ]}}
            """,
            "clients.json": """
            {"version_attribute": "app_version", "clients": [
              {"versions": ">=5.0.0 <6.0.0", "components": ["vstack", "label", "button", "list"]},
              {"versions": ">=6.0.0 <6.2.0", "components": ["vstack", "hstack", "label", "button", "list", "grid"]},
              {"versions": ">=6.2.0 <7.0.0", "components": ["vstack", "hstack", "label", "button", "list", "grid", "carousel"]}
            ]}
            """,
            "users.json": Self.users,
        ], under: root)
        let pop = Self.population(900)
        try Data(pop.map(\.json).joined(separator: "\n").utf8).write(to: root.appendingPathComponent("pop.jsonl"))
        var full: HostResult?
        for jobs in ["1", "2"] {
            let planned = try Host.run(["eval", "home", "--users", "pop.jsonl", "--jobs", jobs], directory: root)
            let resolved = try Host.run(["eval", "home", "--users", "pop.jsonl", "--jobs", jobs], environment: ["LOOM_EVAL_NO_PLAN": "1"], directory: root)
            assertExit(planned, 0)
            XCTAssertEqual(planned.stdout, resolved.stdout, "--jobs \(jobs)")
            XCTAssertEqual(planned.stderr, resolved.stderr, "--jobs \(jobs)")
            if let full { XCTAssertEqual(full.stdout, planned.stdout) }
            full = planned
            assertContains(planned.stderr, "unknown client", in: planned)
        }
        for (u, line) in zip(pop, try XCTUnwrap(full).stdoutLines.filter { !$0.isEmpty }) {
            let ids = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["visible"] as? [String])
            // The client, by the independent classification above (its ranges split at 6.0.0 too).
            var c = Self.client(u.version)
            if c == 0, let s = u.version as? String, s.trimmingCharacters(in: CharacterSet(charactersIn: "v")).hasPrefix("6") { c = 2 }
            let level = c == 1 ? 3 : (c == 2 ? 2 : 1)  // 0 and unknown (the common types) render the list only
            let gold = u.tier == "gold"
            XCTAssertEqual(ids.contains("promos"), gold && level == 3, u.json)
            XCTAssertEqual(ids.contains("promos_grid"), gold && level == 2, u.json)
            XCTAssertEqual(ids.contains("promos_list"), gold && level == 1, u.json)
            XCTAssertEqual(ids.contains("bar"), level >= 2 && u.country != "DK", u.json)
        }
    }

    func testMatrixCountsUnsupportedNodesPerSegment() throws {
        let root = try project()
        let pop = Self.population(300)
        try Data(pop.map(\.json).joined(separator: "\n").utf8).write(to: root.appendingPathComponent("pop.jsonl"))
        let r = try Host.run(["matrix", "home", "--users", "pop.jsonl", "--by", "tier", "--format", "json"], directory: root)
        assertExit(r, 0)
        let o = try r.jsonObject()
        for seg in try XCTUnwrap(o["segments"] as? [[String: Any]]) {
            let tier = try XCTUnwrap((seg["segment"] as? [String: Any])?["tier"] as? String)
            let rows = try XCTUnwrap(seg["rows"] as? [[String: Any]]).filter { $0["kind"] as? String == "unsupported" }
            for node in ["promos", "tiles", "bar"] {
                let want = pop.filter { $0.tier == tier && Self.expected($0).contains { $0.0 == node } }.count
                let got = rows.first { $0["id"] as? String == node }?["users"] as? Int ?? 0
                XCTAssertEqual(got, want, "\(tier) \(node)")
            }
        }
    }

    func testRunCheckAndServeGiveEachProfileWhatItsClientRenders() throws {
        let root = try project()
        let supported: [String: Set<String>] = [
            "old": ["vstack", "label", "button", "list"],
            "new": ["vstack", "hstack", "label", "button", "list", "grid", "carousel"],
        ]
        let run = try Host.run(["run", "home", "--user", "old_gold"], directory: root)
        assertExit(run, 0)
        assertContains(run.stdout, "list #promos_list", in: run)
        assertLacks(run.stdout, "carousel", in: run)
        assertContains(run.stderr, "screens/home.json:3:3: note: the user's client (clients[0], >=5.0.0 <6.2.0) cannot render 'carousel' (promos): its fallback 'promos_list' is shown instead", in: run, "stderr")
        assertContains(run.stderr, "screens/home.json:6:3: warning: the user's client (clients[0], >=5.0.0 <6.2.0) cannot render 'hstack' (bar) and it has no \"fallback\": it is removed", in: run, "stderr")
        let beta = try Host.run(["run", "home", "--user", "beta"], directory: root)
        assertContains(beta.stderr, "clients.json:1:23: warning: unknown client: 'app_version' '6.2.0-beta.1' is in no range of clients.json", in: beta, "stderr")
        let check = try Host.run(["check"], directory: root)
        assertContains(check.stderr + check.stdout, "cannot render 'hstack' (bar) and it has no \"fallback\": it is removed (profile 'old_gold')", in: check)
        assertContains(check.stderr + check.stdout, "an unknown client cannot render 'hstack' (bar) and it has no \"fallback\": it is removed (profiles 'beta', 'none')", in: check)
        // The server sends what host run prints, and never a type the profile's client cannot render.
        let server = try ServeCommandTests.Server(["--project", root.path, "--workers", "2"])
        for (profile, client) in [("old_gold", "old"), ("new_gold", "new"), ("old_free", "old"), ("beta", "old"), ("none", "old")] {
            let got = try server.call("/v1/screens/home?profile=\(profile)")
            XCTAssertEqual(got.status, 200, got.body)
            let expected = try Host.run(["run", "home", "--project", root.path, "--user", profile, "--format", "json", "--no-graph"])
            XCTAssertEqual(got.body, expected.stdout, profile)
            let tree = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(got.body.utf8)) as? [String: Any])
            let types = Set(TreeJSON.components(tree["tree"]).compactMap { $0["type"] as? String })
            XCTAssertFalse(types.isEmpty, got.body)
            XCTAssertTrue(types.isSubset(of: supported[client]!), "\(profile) got \(types)")
            if client == "new" { XCTAssertTrue(types.contains("carousel") || profile != "new_gold", "\(profile): \(types)") }
        }
        // The same body with a user's own attributes: the version in the request decides.
        let posted = try server.call("/v1/screens/home", method: "POST", body: #"{"user": {"tier": "gold", "country": "NO", "app_version": "5.0.0"}}"#)
        XCTAssertTrue(posted.body.contains("promos_list") && !posted.body.contains("\"carousel\""), posted.body)
    }

    func testBadClientsFilesAndFallbacksAreLocatedErrors() throws {
        let cases: [(String, String, String)] = [
            ("clients.json", #"{"version_attribute": "app_version", "clients": [{"versions": ">=5.0 <<6", "components": ["label"]}]}"#,
             #"clients.json:1:63: error: clients[0].versions '>=5.0 <<6' is not a SemVer range"#),
            ("clients.json", #"{"version_attribute": 3, "clients": []}"#, "clients.json:1:23: error: \"version_attribute\" names the user attribute"),
            ("clients.json", #"{"clients": [{"versions": "*"}]}"#, "clients.json:1:14: error: clients[0] needs \"components\""),
            ("clients.json", #"[1]"#, "clients.json:1:1: error: clients.json holds an object"),
            ("clients.json", #"{"version_attribute": "v", "clients": [{"versions": "1.2.3", "components": ["label"], "extra": 1}]}"#,
             "error: unknown key 'extra' in clients[0]"),
            ("screens/home.json", #"{"screen": "home", "root": {"type": "label", "id": "t", "fallback": "hide"}}"#,
             #"screens/home.json:1:69: error: "fallback" is a component or "drop", found the string 'hide'"#),
            ("screens/home.json", #"{"screen": "home", "root": {"type": "label", "id": "t", "fallback": {"type": "label", "rule": "x"}}}"#,
             #"error: a fallback has no "rule" of its own"#),
            ("screens/home.json", #"{"screen": "home", "root": {"type": "label", "id": "t", "fallback": {"type": "label"}}}"#,
             #"error: a fallback component needs an "id" of its own"#),
        ]
        for (file, text, message) in cases {
            let root = try project()
            try Host.write([file: text], under: root)
            let r = try Host.run(["run", "home", "--user", "old_gold"], directory: root)
            assertExit(r, 1)
            assertContains(r.stderr, message, in: r, "stderr")
            // A bad clients.json: no tree, in any format, and no drawing (before 2026-11-28
            // run and render printed the screen with no client's limits applied, exiting 1).
            if file == "clients.json" {
                for args in [["run", "home", "--user", "old_gold", "--format", "json"], ["render", "home", "--user", "old_gold"]] {
                    let x = try Host.run(args, directory: root)
                    assertExit(x, 1)
                    XCTAssertTrue(x.stdout.isEmpty, x.transcript)
                    assertContains(x.stderr, message, in: x, "stderr")
                }
            }
        }
    }

    /// Nodes a builder creates (`ui.*`) have no fallback: one the client cannot render is removed
    /// with the warning, per client, however the trees are cached (users alternate clients).
    func testNodesABuilderCreatesAreCheckedAgainstTheClient() throws {
        let root = try project()
        try Host.write([
            "plugins/card/plugin.lua": """
            return { name = "card", version = "1.0.0", api = 1, register = function(host)
              host.single("card", function(node)
                return { view = "Card", children = { ui.label{ text = "T" }, ui.button{ title = "Buy" } } }
              end, { meta = {} })
            end }
            """,
            "screens/home.json": #"{"screen": "home", "root": {"type": "vstack", "id": "root", "children": [{"type": "card", "id": "deal"}]}}"#,
            "clients.json": #"{"version_attribute": "v", "clients": [{"versions": "<2", "components": ["vstack", "card", "label"]}, {"versions": ">=2", "components": ["vstack", "card", "label", "button"]}]}"#,
            "pop.jsonl": (0..<40).map { #"{"id": "\#($0)", "v": "\#($0 % 2 == 0 ? "1.0.0" : "2.0.0")"}"# }.joined(separator: "\n"),
        ], under: root)
        let r = try Host.run(["eval", "home", "--users", "pop.jsonl", "--select", "unsupported", "--jobs", "1"], directory: root)
        assertExit(r, 0)
        let lines = r.stdoutLines.filter { !$0.isEmpty }
        XCTAssertEqual(lines.count, 40)
        for (i, line) in lines.enumerated() {
            if i % 2 == 0 {
                XCTAssertTrue(line.contains(#""type":"button""#), line)
            } else {
                XCTAssertTrue(line.hasSuffix(#""unsupported":[]}"#), line)
            }
        }
        let tree = try Host.run(["eval", "home", "--users", "pop.jsonl", "--select", "tree", "--jobs", "2"], directory: root)
        for (i, line) in tree.stdoutLines.filter({ !$0.isEmpty }).enumerated() {
            XCTAssertEqual(line.contains(#""type":"button""#), i % 2 == 1, line)
        }
    }
}
