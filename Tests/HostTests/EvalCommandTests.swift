import Foundation
import XCTest

/// `host eval`: a population of users through screens (docs/populations.md).
final class EvalCommandTests: XCTestCase {
    /// Users of the sample app: every tier, country, version and churn score, seeded.
    static func generatedUsers(_ n: Int, seed: UInt64 = 20261122) -> [[String: Any]] {
        var rng = seed
        func next(_ m: Int) -> Int {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Int((rng >> 33) % UInt64(m))
        }
        let tiers = ["gold", "free", "guest"], countries = ["NO", "SE", "DK", "FI"], versions = ["5.1.0", "5.2.0", "5.3.0"]
        return (0..<n).map { i in
            var u: [String: Any] = ["tier": tiers[next(3)], "country": countries[next(4)], "app_version": versions[next(3)]]
            if next(4) > 0 { u["id"] = String(100 + next(900)) }
            if next(3) > 0 { u["churn_score"] = Double(next(100)) / 100 }
            if i % 3 == 0 { u["name"] = "user\(i)" }
            return u
        }
    }

    static func jsonl(_ users: [[String: Any]]) throws -> String {
        try users.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
            .joined(separator: "\n") + "\n"
    }

    /// The ids `host eval --select visible` lists, from `host run --format json`'s tree.
    static func visibleIDs(_ tree: Any?) -> [String] {
        var out: [String] = []
        func node(_ n: [String: Any]) {
            if n["hidden"] as? Bool == true { return }
            out.append((n["id"] as? String) ?? "?")
            if let h = n["header"] as? [String: Any] { node(h) }
            for c in n["children"] as? [[String: Any]] ?? [] { node(c) }
            for i in n["items"] as? [[String: Any]] ?? [] where i["hidden"] as? Bool != true {
                out.append((i["id"] as? String) ?? (i["action"] as? String) ?? "?")
                for c in i["children"] as? [[String: Any]] ?? [] { node(c) }
            }
            if let f = n["footer"] as? [String: Any] { node(f) }
        }
        if let t = tree as? [String: Any] { node(t) }
        return out
    }

    func lines(_ r: HostResult) -> [[String: Any]] {
        r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func testVisibleSetMatchesHostRunForSampledUsers() throws {
        let dir = try Host.temporaryFolder("eval-sample")
        let users = Self.generatedUsers(120)
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(try Self.jsonl(users).utf8).write(to: file)
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path, "--jobs", "1"])
        assertExit(r, 0)
        let out = lines(r)
        XCTAssertEqual(out.count, 120, r.transcript)
        // Every line is the user's name or line number, the screen, and what is visible.
        for (i, line) in out.enumerated() {
            if let name = users[i]["name"] as? String { XCTAssertEqual(line["user"] as? String, name) } else { XCTAssertEqual(line["user"] as? Int, i + 1) }
            XCTAssertEqual(line["screen"] as? String, "home")
        }
        let distinct = Set(out.map { ($0["visible"] as? [String] ?? []).joined(separator: " ") })
        XCTAssertGreaterThan(distinct.count, 2, "the sample should reach several segments")
        for i in stride(from: 0, to: 120, by: 17) {
            var args = ["run", "home", "--project", Host.moviesProject, "--format", "json", "--no-graph"]
            for (k, v) in users[i] where k != "name" {
                let json = String(decoding: try JSONSerialization.data(withJSONObject: [v], options: [.fragmentsAllowed]), as: UTF8.self)
                args += ["--context", "\(k)=\(json.dropFirst().dropLast())"]
            }
            let run = try Host.run(args)
            assertExit(run, 0)
            let tree = try run.jsonObject()["tree"]
            XCTAssertEqual(out[i]["visible"] as? [String], Self.visibleIDs(tree), "user at line \(i + 1)\n\(run.transcript)")
        }
    }

    func testJobsTwoIsByteForByteJobsOne() throws {
        let dir = try Host.temporaryFolder("eval-jobs")
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(try Self.jsonl(Self.generatedUsers(1000)).utf8).write(to: file)
        for select in ["visible", "hash", "actions"] {
            let one = try Host.run(["eval", "home", "movie_detail", "--project", Host.moviesProject, "--users", file.path, "--jobs", "1", "--select", select])
            let two = try Host.run(["eval", "home", "movie_detail", "--project", Host.moviesProject, "--users", file.path, "--jobs", "2", "--select", select])
            assertExit(one, 0)
            assertExit(two, 0)
            XCTAssertEqual(one.stdoutData.count, two.stdoutData.count)
            XCTAssertTrue(one.stdoutData == two.stdoutData, "--jobs 2 differs from --jobs 1 (--select \(select))")
            XCTAssertEqual(one.stdoutLines.count, 2001, "two screens per user and a final newline")
        }
        let csv1 = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path, "--jobs", "1", "--format", "json"])
        let csv2 = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path, "--jobs", "2", "--format", "json"])
        XCTAssertTrue(csv1.stdoutData == csv2.stdoutData)
        let array = try JSONSerialization.jsonObject(with: csv1.stdoutData) as? [Any]
        XCTAssertEqual(array?.count, 1000, "--format json is one array")
    }

    /// --select visible's fast path (outcome-keyed, VisibilityPlan) prints what full resolutions print.
    func testVisibleFastPathEqualsFullResolution() throws {
        let dir = try Host.temporaryFolder("eval-plan")
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(try Self.jsonl(Self.generatedUsers(400)).utf8).write(to: file)
        for screen in ["home", "movie_detail"] {
            let fast = try Host.run(["eval", screen, "--project", Host.moviesProject, "--users", file.path, "--jobs", "1"])
            let full = try Host.run(["eval", screen, "--project", Host.moviesProject, "--users", file.path, "--jobs", "1"],
                                    environment: ["LOOM_EVAL_NO_PLAN": "1"])
            assertExit(fast, 0)
            XCTAssertEqual(fast.stdoutLines.count, 401)
            XCTAssertTrue(fast.stdoutData == full.stdoutData, "fast path differs from full resolution on \(screen)")
            XCTAssertEqual(fast.stderr, full.stderr)
        }
    }

    /// `--select tree` writes the texts `host run` shows: the sample's strings resolved for each
    /// user's `locale` attribute, else loom.json's `default_locale` (docs/localization.md), and
    /// the hash digests the same tree (English: the hash of the texts as written before).
    func testTreeTextsAreLocalizedAsHostRunLocalizesThem() throws {
        let dir = try Host.temporaryFolder("eval-locale")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(#"""
            {"name": "en", "tier": "gold", "id": "174", "country": "NO", "app_version": "5.3.0"}
            {"name": "nb", "tier": "gold", "id": "174", "country": "NO", "app_version": "5.3.0", "locale": "nb-NO"}
            {"name": "ar", "tier": "free", "id": "499", "country": "SE", "app_version": "5.1.0", "locale": "ar"}

            """#.utf8).write(to: file)
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path, "--select", "tree"])
        assertExit(r, 0)
        let out = lines(r)
        XCTAssertEqual(out.count, 3, r.transcript)
        func text(_ tree: Any?) -> String { String(decoding: try! JSONSerialization.data(withJSONObject: tree ?? NSNull(), options: [.sortedKeys]), as: UTF8.self) }
        let trees = out.map { text($0["tree"]) }
        XCTAssertTrue(trees[0].contains(#""title":"Watched""#), trees[0])
        XCTAssertTrue(trees[1].contains(#""title":"3 filmer sett""#), trees[1])
        XCTAssertTrue(trees[1].contains(#""title":"Sett""#), trees[1])
        XCTAssertTrue(trees[2].contains("اشترك في الذهبي: 4K والتنزيل"), trees[2])
        for t in trees { XCTAssertFalse(t.contains("localized_string"), t) }
        for (i, (locale, user)) in [(nil, "gold"), ("nb-NO", "gold"), ("ar", "free")].enumerated() {
            var args = ["run", "home", "--project", Host.moviesProject, "--user", user, "--format", "json", "--no-graph"]
            if let locale { args += ["--locale", locale] }
            let run = try Host.run(args)
            assertExit(run, 0)
            XCTAssertEqual(trees[i], text(try run.jsonObject()["tree"]), "line \(i + 1): host eval's tree is host run's\n\(run.transcript)")
        }
    }

    func testHashIsStableAndDistinguishesTrees() throws {
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--select", "hash"])
        assertExit(r, 0)
        let out = lines(r)
        XCTAssertEqual(out.map { $0["user"] as? String }, ["gold", "free", "guest", "gold_at_risk"])
        let hashes = out.compactMap { $0["hash"] as? String }
        XCTAssertEqual(hashes.count, 4)
        XCTAssertTrue(hashes.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        XCTAssertNotEqual(hashes[0], hashes[1], "gold and free see different trees")
        let again = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--select", "hash", "--jobs", "2"])
        XCTAssertEqual(r.stdout, again.stdout)
    }

    /// Ids that JSON has to escape (a quote, a backslash, a tab) or that are not ASCII come out
    /// as `host run` names them, in the fast path's lines (JSON Lines, JSON) and in CSV.
    func testVisibleIDsNeedingEscapesAreWrittenAsJSON() throws {
        let dir = try Host.temporaryFolder("eval-escapes")
        let ids = [#"say \"hi\""#, #"back\\slash"#, #"tab\there"#, "blåbær", "ok"]
        let children = ids.enumerated().map { k, id in
            #"{"type": "label", "id": "\#(id)", "meta": {"text": "x"}\#(k == 4 ? #", "rule": "gold""# : "")}"#
        }.joined(separator: ", ")
        try Host.write([
            "loom.json": "{}",
            "plugins/g/plugin.lua": """
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(user) return user.tier == "gold" end)
            end }
            """,
            "screens/esc.json": #"{"screen": "esc", "root": {"type": "stack", "id": "root", "children": [\#(children)]}}"#,
            "users.jsonl": #"{"name": "g", "tier": "gold"}"# + "\n" + #"{"name": "f", "tier": "free"}"# + "\n",
        ], under: dir)
        let expected = ["root", "say \"hi\"", "back\\slash", "tab\there", "blåbær"]
        let r = try Host.run(["eval", "esc", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path])
        assertExit(r, 0)
        let vis = lines(r).map { $0["visible"] as? [String] ?? [] }
        XCTAssertEqual(vis, [expected + ["ok"], expected], r.transcript)
        let run = try Host.run(["run", "esc", "--project", dir.path, "--user", "g", "--format", "json"], directory: dir)
        if let data = run.stdout.data(using: .utf8), let doc = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            XCTAssertEqual(EvalCommandTests.visibleIDs(doc["tree"]), expected + ["ok"], "host run names them alike")
        }
        let csv = try Host.run(["eval", "esc", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--format", "csv"])
        assertExit(csv, 0)
        XCTAssertTrue(csv.stdout.contains("blåbær"), csv.transcript)
    }

    /// A project whose rules reveal the attributes' Lua types.
    func typingProject() throws -> URL {
        let dir = try Host.temporaryFolder("eval-csv")
        try Host.write([
            "loom.json": "{}",
            "plugins/types/plugin.lua": """
            return { name = "types", version = "1.0.0", api = 1, register = function(host)
              host.rule("id_is_string", function(user) return type(user.id) == "string" end)
              host.rule("id_is_integer", function(user) return math.type(user.id) == "integer" end)
              host.rule("churn_is_float", function(user) return math.type(user.churn_score) == "float" end)
              host.rule("churn_is_integer", function(user) return math.type(user.churn_score) == "integer" end)
              host.rule("no_churn", function(user) return user.churn_score == nil end)
              host.rule("beta_is_bool", function(user) return type(user.beta) == "boolean" end)
              host.rule("quoted_country", function(user) return user.country == 'S"E' end)
            end }
            """,
            "screens/types.json": """
            {"screen": "types", "root": {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "id_string", "rule": "id_is_string"},
              {"type": "label", "id": "id_integer", "rule": "id_is_integer"},
              {"type": "label", "id": "churn_float", "rule": "churn_is_float"},
              {"type": "label", "id": "churn_integer", "rule": "churn_is_integer"},
              {"type": "label", "id": "no_churn", "rule": "no_churn"},
              {"type": "label", "id": "beta_bool", "rule": "beta_is_bool"},
              {"type": "label", "id": "quoted", "rule": "quoted_country"}
            ]}}
            """,
        ], under: dir)
        return dir
    }

    func testCSVTypingByTheDefaultRuleAndBySchema() throws {
        let dir = try typingProject()
        let csv = Host.repoRoot.appendingPathComponent("Tests/Fixtures/population/users.csv").path
        let r = try Host.run(["eval", "types", "--project", dir.path, "--users", csv, "--jobs", "1"])
        assertExit(r, 0)
        let vis = lines(r).map { ($0["user"] as? String ?? "#\($0["user"] ?? "")", $0["visible"] as? [String] ?? []) }
        XCTAssertEqual(vis.map(\.0), ["ana", "ben", "cy", "#5", "dee, jr"])
        XCTAssertEqual(vis[0].1, ["root", "id_integer", "churn_float", "beta_bool"], "174 is an integer, 0.1 a float, true a boolean")
        XCTAssertEqual(vis[2].1, ["root", "id_integer", "churn_float"], "an empty cell is absent")
        XCTAssertEqual(vis[3].1, ["root", "no_churn"])
        XCTAssertEqual(vis[4].1, ["root", "id_string", "churn_integer", "quoted"], "0123 keeps its zero as a string; quotes are unescaped")
        let schema = Host.repoRoot.appendingPathComponent("Tests/Fixtures/population/users.schema.json").path
        let s = try Host.run(["eval", "types", "--project", dir.path, "--users", csv, "--schema", schema])
        assertExit(s, 0)
        let typed = lines(s).map { $0["visible"] as? [String] ?? [] }
        XCTAssertEqual(typed[0], ["root", "id_string", "churn_float", "beta_bool"], "--schema makes id a string")
        XCTAssertEqual(typed[4], ["root", "id_string", "churn_integer", "quoted"], "a number column keeps 1 an integer")
    }

    func testBadLinesAreLocatedAndNotFatal() throws {
        let bad = "Tests/Fixtures/population/bad.jsonl"
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", bad, "--jobs", "2"])
        assertExit(r, 1)
        let out = lines(r)
        XCTAssertEqual(out.map { "\($0["user"]!)" }, ["ok1", "ok2", "7"], "the good lines all come out, in order")
        assertContains(r.stderr, "\(bad):2:", in: r, "stderr")
        assertContains(r.stderr, "\(bad):4:1: error: a user is a JSON object of attributes, found an array", in: r, "stderr")
        assertContains(r.stderr, "\(bad):6:10: error: \"name\" names the user (a string)", in: r, "stderr")
        assertContains(r.stderr, "eval: 6 users, 3 failed", in: r, "stderr")
        XCTAssertFalse(r.stdout.contains("broken"))
    }

    func testFailFastStopsAtTheFirstBadLine() throws {
        let bad = "Tests/Fixtures/population/bad.jsonl"
        for jobs in ["1", "2"] {
            let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", bad, "--fail-fast", "--jobs", jobs])
            assertExit(r, 1)
            XCTAssertEqual(lines(r).map { "\($0["user"]!)" }, ["ok1"])
            assertContains(r.stderr, "\(bad):2:", in: r, "stderr")
            XCTAssertFalse(r.stderr.contains("\(bad):4:"), r.transcript)
            assertContains(r.stderr, "--fail-fast", in: r, "stderr")
        }
    }

    /// Progress (users per second, the time left) on stderr when it is a terminal, and never
    /// otherwise. The terminal is a pseudo-terminal made by util-linux's `script`.
    func testProgressOnATerminalAndNeverOtherwise() throws {
        guard let script = Host.which("script") else { throw XCTSkip("no `script` (util-linux) to give the host a terminal") }
        let dir = try Host.temporaryFolder("eval-progress")
        let file = dir.appendingPathComponent("users.jsonl")
        // Enough users for a run of well over 200 ms (the first progress line is drawn then).
        var text = ""
        for i in 0..<150_000 { text += "{\"tier\": \"\(["gold", "free", "guest"][i % 3])\", \"country\": \"NO\"}\n" }
        try Data(text.utf8).write(to: file)
        let binary = try Host.requireBinary()
        let command = "\"\(binary.path)\" eval home --project \(Host.moviesProject) --users \(file.path) --jobs 1 > /dev/null"
        let tty = try Host.runExecutable(script, ["-qec", command, "/dev/null"], timeout: 600, allowEscapes: true)
        assertExit(tty, 0)
        assertContains(tty.stdout, " users/s, ETA ", in: tty, "the terminal")
        assertContains(tty.stdout, "\r\u{1B}[K", in: tty, "the terminal (a line redrawn in place)")
        assertContains(tty.stdout, "eval: 150000 users, none failed", in: tty, "the terminal")
        // A run shorter than 200 ms draws no progress at all (a rate over its first batch would
        // mean nothing).
        let short = try Host.runExecutable(script, ["-qec", "\"\(binary.path)\" eval home --project \(Host.moviesProject) --users \(Host.moviesProject)/users.json > /dev/null", "/dev/null"], allowEscapes: true)
        assertExit(short, 0)
        XCTAssertEqual(short.stdout.replacingOccurrences(of: "\r\n", with: "\n"), "eval: 4 users, none failed\n", short.transcript)
        let plain = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path, "--jobs", "1"], timeout: 600)
        assertExit(plain, 0)
        XCTAssertEqual(plain.stderr, "eval: 150000 users, none failed\n", "no progress when stderr is not a terminal")
    }

    func testStandardInput() throws {
        let dir = try Host.temporaryFolder("eval-stdin")
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(try Self.jsonl(Self.generatedUsers(50)).utf8).write(to: file)
        let fromFile = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path])
        let binary = try Host.requireBinary()
        let piped = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), [
            "-c", "cat \"$1\" | \"$2\" eval home --project \(Host.moviesProject) --users -", "sh", file.path, binary.path,
        ])
        assertExit(piped, 0)
        XCTAssertEqual(piped.stdout, fromFile.stdout)
        XCTAssertEqual(piped.stdoutLines.count, 51)
        // CSV on standard input says so.
        let csv = Host.repoRoot.appendingPathComponent("Tests/Fixtures/population/users.csv").path
        let c = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), [
            "-c", "\"$2\" eval home --project \(Host.moviesProject) --users - --users-format csv < \"$1\"", "sh", csv, binary.path,
        ])
        assertExit(c, 0)
        XCTAssertEqual(c.stdoutLines.count, 6)
    }

    func testCSVOutputAndErrors() throws {
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--format", "csv"])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutLines.first, "user,screen,visible")
        XCTAssertTrue(r.stdoutLines[1].hasPrefix("gold,home,\"[\"\"tabs\"\""), r.transcript)
        let missing = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", "no/such.jsonl"])
        assertExit(missing, 1)
        assertContains(missing.stderr, "cannot read users from 'no/such.jsonl'", in: missing, "stderr")
        let screen = try Host.run(["eval", "nope", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json"])
        assertExit(screen, 1)
        assertContains(screen.stderr, "no screen 'nope'", in: screen, "stderr")
        XCTAssertEqual(screen.stdout, "")
    }

    /// Nothing is lost at the edges of the input: a JSON Lines record over 16 MiB at the end
    /// without a line break (once dropped when it was 16–32 MiB) or in the middle (once accepted
    /// when the reader's buffer held it whole), and a CSV row whose quote is never closed in a
    /// large file (once dropped), are each an error at their line that fails the run, through
    /// a file and a pipe, at --jobs 1 and 2, in host eval and host matrix; the users around them
    /// are all read.
    func testRecordsOverTheLimitOrNeverClosedAreErrorsThroughAFileAndAPipe() throws {
        let dir = try Host.temporaryFolder("eval-lost")
        let pad = String(repeating: "a", count: 20 << 20)
        let inputs: [(name: String, text: String, format: String, error: String, users: Int)] = [
            ("end.jsonl", "{\"name\": \"first\"}\n{\"pad\": \"\(pad)\"}", "jsonl", ":2: error: this record is longer than 16 MiB", 2),
            ("middle.jsonl", "{\"name\": \"first\"}\r\n{\"pad\": \"\(pad)\"}\r\n\r\n{\"name\": \"after\"}\r\n", "jsonl",
             ":2: error: this record is longer than 16 MiB", 3),
            ("open.csv", "name,tier\nfirst,gold\nbob,\"" + String(repeating: "carol,free\n", count: 2_000_000), "csv",
             ":3:5: error: unterminated quoted field", 2),
        ]
        let binary = try Host.requireBinary()
        for input in inputs {
            let file = dir.appendingPathComponent(input.name)
            try Data(input.text.utf8).write(to: file)
            for command in ["eval", "matrix"] {
                for jobs in command == "eval" ? ["1", "2"] : ["2"] {
                    let tail = ["--project", Host.moviesProject, "--users-format", input.format, "--jobs", jobs] + (command == "eval" ? ["--select", "hash"] : ["--no-graph"])
                    let fromFile = try Host.run([command, "home", "--users", file.path] + tail)
                    let piped = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), [
                        "-c", "cat \"$1\" | \"$2\" \(command) home --users - \(tail.joined(separator: " "))", "sh", file.path, binary.path,
                    ])
                    for (r, path) in [(fromFile, file.path), (piped, "<stdin>")] {
                        let what = "\(command) \(input.name) --jobs \(jobs) from \(path)"
                        assertExit(r, 1)
                        assertContains(r.stderr, path + input.error, in: r, what)
                        let summary = command == "eval" ? "eval: \(input.users) users, 1 failed" : "matrix: \(input.users) users, \(input.users - 1) counted in"
                        XCTAssertTrue(r.stderrLines.last?.hasPrefix(summary) == true, "\(what)\n\(r.transcript)")
                        assertContains(r.stdout, "first", in: r, what)
                        if input.users == 3 { assertContains(r.stdout, "after", in: r, what) }
                    }
                    XCTAssertEqual(fromFile.stdout, piped.stdout, "\(command) \(input.name): a file and a pipe give the same output")
                }
            }
        }
    }

    /// A folder is not a population: named as `--users`, it is refused before anything runs;
    /// given on standard input, the failed read is an error and the run fails, rather than
    /// ending as if the input were empty.
    func testAFolderOrAFailedReadIsAnErrorNotAnEmptyPopulation() throws {
        for command in ["eval", "matrix"] {
            let r = try Host.run([command, "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/screens"])
            assertExit(r, 1)
            assertContains(r.stderr, "cannot read users from 'docs/examples/movies/screens': it is a folder", in: r, "stderr")
            XCTAssertEqual(r.stdout, "", r.transcript)
            let binary = try Host.requireBinary()
            let s = try Host.runExecutable(URL(fileURLWithPath: "/bin/sh"), [
                "-c", "\"$2\" \(command) home --project \(Host.moviesProject) --users - < \"$1\"", "sh", Host.moviesProject + "/screens", binary.path,
            ])
            assertExit(s, 1)
            assertContains(s.stderr, "error: reading users from standard input failed after 0 bytes: Is a directory", in: s, "stderr")
            XCTAssertTrue(s.stderrLines.last?.hasSuffix("none failed (the input could not be read to its end)") == true, s.transcript)
        }
    }

    /// A spreadsheet's CSV export starts with a UTF-8 byte order mark: the first column is
    /// still `name`, not "\u{FEFF}name".
    func testCSVHeaderAfterAByteOrderMark() throws {
        let dir = try Host.temporaryFolder("eval-bom")
        let users = dir.appendingPathComponent("users.csv")
        try Data([0xEF, 0xBB, 0xBF] + Array("name,tier\r\nann,gold\r\nbo,free\r\n".utf8)).write(to: users)
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", users.path, "--select", "hash"])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutLines.filter { !$0.isEmpty }.map { $0.components(separatedBy: #","screen""#)[0] }, [#"{"user":"ann""#, #"{"user":"bo""#], r.transcript)
        let plain = dir.appendingPathComponent("plain.csv")
        try Data("name,tier\nann,gold\nbo,free\n".utf8).write(to: plain)
        XCTAssertEqual(r.stdout, try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", plain.path, "--select", "hash"]).stdout)
    }

    /// In CSV, a user named "2" and the user without a name on line 2 are two users: a name
    /// that would read as a number, `null` or JSON is written as a JSON string.
    func testCSVUserLabelsThatReadAlikeAreWrittenApart() throws {
        let dir = try Host.temporaryFolder("eval-labels")
        let users = dir.appendingPathComponent("users.jsonl")
        try Data((#"{"name": "2"}"# + "\n{}\n" + #"{"name": "null"}"# + "\n" + #"{"name": "Ann Lee"}"# + "\n").utf8).write(to: users)
        let r = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", users.path, "--format", "csv", "--select", "hash"])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutLines.filter { !$0.isEmpty }.map { $0.components(separatedBy: ",home,")[0] }, ["user,screen,hash", #""""2""""#, "2", #""""null""""#, "Ann Lee"], r.transcript)
        let jsonl = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", users.path, "--select", "hash"])
        XCTAssertEqual(jsonl.stdoutLines.filter { !$0.isEmpty }.map { $0.components(separatedBy: #","screen""#)[0] }, [#"{"user":"2""#, #"{"user":2"#, #"{"user":"null""#, #"{"user":"Ann Lee""#], jsonl.transcript)
    }
}
