import Foundation
import XCTest

/// scripts/spark-eval: `host eval` over a dataset's partitions with Apache Spark (PySpark from
/// PyPI, Java 17), on local[2], against one `host eval` run. Skipped, saying why, when PySpark or
/// Java cannot run here. `LOOM_SPARK_USERS` sets the population (default 100,000).
final class SparkEvalTests: XCTestCase {
    func requireSpark() throws {
        guard Host.which("java") != nil else { throw XCTSkip("spark-eval: no java on PATH (Spark needs Java 17)") }
        let ensure = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "scripts/spark-eval", "--ensure"], timeout: 600)
        if ensure.status != 0 { throw XCTSkip("spark-eval: PySpark cannot be installed or imported here\n\(ensure.stderr.suffix(2000))") }
    }

    func testSparkEvalEqualsOneHostEvalRunLineForLine() throws {
        try requireSpark()
        let n = ProcessInfo.processInfo.environment["LOOM_SPARK_USERS"].flatMap { Int($0) } ?? 100_000
        let dir = try Host.temporaryFolder("spark")
        let users = dir.appendingPathComponent("users.jsonl")
        var text = try EvalCommandTests.jsonl(EvalCommandTests.generatedUsers(n))
        // A bad line and a blank one: located by their line in the whole dataset, not the partition.
        text += "{\"tier\": \n\n{\"tier\": \"gold\", \"app_version\": \"5.3.0\"}\n"
        try Data(text.utf8).write(to: users)
        // A small screen (3 gated components): the test times Spark's plumbing, not the resolver.
        let project = dir.appendingPathComponent("project")
        try Host.write([
            "loom.json": "{}",
            "plugins/small/plugin.lua": """
            return { name = "small", version = "1.0.0", api = 1, register = function(host)
              host.rule("is_gold", function(user) return user.tier == "gold" end)
              host.rule("nordic", function(user) return user.country == "NO" or user.country == "SE" end)
              host.rule("no_guests", function(user)
                if user.tier == "guest" then error("guests are not served") end
                return true
              end)
            end }
            """,
            "screens/home.json": """
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "premium", "rule": "is_gold"},
              {"type": "label", "id": "upsell", "rule": {"NOT": "is_gold"}},
              {"type": "label", "id": "nordic", "rule": "nordic"},
              {"type": "label", "id": "new", "rule": {"at_least": {"app_version": "5.2.0"}}},
              {"type": "label", "id": "members", "rule": "no_guests"}
            ]}}
            """,
        ], under: project)
        let binary = try Host.requireBinary()
        let single = try Host.run(["eval", "home", "--project", project.path, "--users", users.path, "--jobs", "2"], timeout: 600)
        assertExit(single, 1)
        assertContains(single.stderr, "\(users.path):\(n + 1):", in: single, "stderr")
        let out = dir.appendingPathComponent("out")
        let spark = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "scripts/spark-eval", "eval", "--users", users.path, "--screen", "home", "--project", project.path,
            "--host", binary.path, "--output", out.path, "--master", "local[2]", "--partitions", "4",
        ], timeout: 900)
        // As one host eval run: exit 1 (a line could not be read), the error located in the
        // dataset, and the host processes' summaries added up to the single run's.
        assertExit(spark, 1)
        let parts = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("part-") }.sorted()
        XCTAssertGreaterThanOrEqual(parts.count, 2, "several partitions")
        var joined = Data()
        for p in parts { joined.append(try Data(contentsOf: out.appendingPathComponent(p))) }
        let sparkLines = String(decoding: joined, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let singleLines = single.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(sparkLines.count, singleLines.count)
        XCTAssertEqual(sparkLines.last, "")
        XCTAssertTrue(sparkLines == singleLines, "Spark's output is one host eval run's, line for line")
        XCTAssertTrue(sparkLines[sparkLines.count - 2].hasPrefix("{\"user\":\(n + 3),"), "unnamed users keep their line in the dataset")
        assertContains(spark.stderr, "\(users.path):\(n + 1):", in: spark, "the executors' stderr")
        XCTAssertFalse(spark.stderr.contains("<stdin>"), "errors name the dataset, not the host's standard input")
        // A rule failing in every partition is reported once, its users added up, as by the
        // single run: the same diagnostics (the records' in any order, the executors print them
        // as they come), the rule's in the same order.
        let sparkErrors = spark.stderrLines.filter { $0.contains(": error: ") }
        let singleErrors = single.stderrLines.filter { $0.contains(": error: ") }
        XCTAssertEqual(sparkErrors.sorted(), singleErrors.sorted(), spark.transcript)
        let ruleErrors = { (lines: [String]) in lines.filter { !$0.hasPrefix(users.path + ":") } }
        XCTAssertEqual(ruleErrors(sparkErrors), ruleErrors(singleErrors))
        XCTAssertFalse(ruleErrors(singleErrors).isEmpty, single.transcript)
        assertContains(spark.stderr, "guests are not served", in: spark, "stderr")
        XCTAssertEqual(spark.stderr.components(separatedBy: "guests are not served").count, 2, "reported once: " + spark.stderr)
        let summary = try XCTUnwrap(single.stderrLines.last)
        XCTAssertTrue(summary.hasPrefix("eval: \(n + 2) users, 1 failed"), single.transcript)
        XCTAssertEqual(spark.stderrLines.last, "spark-eval " + summary, spark.transcript)
    }
    /// `spark-eval matrix`: one `host matrix` per partition, added up in Spark, equals one
    /// `host matrix` run over the whole dataset: every segment and key in the same order
    /// (components, items and graph edges; declared nodes nobody saw), the same counts and
    /// percentages, the same errors, summary and exit status.
    func testSparkMatrixEqualsOneHostMatrixRun() throws {
        try requireSpark()
        let dir = try Host.temporaryFolder("spark-matrix")
        let users = dir.appendingPathComponent("users.jsonl")
        var text = try String(contentsOfFile: "docs/examples/movies/population.jsonl", encoding: .utf8)
        // `plan` only on the last line (in the last partition): present in the dataset, so no
        // warning; `cuntry` on no line: one warning, as one host matrix run gives it.
        text += "{\"tier\": \n{\"name\": \"u0001\", \"tier\": \"gold\", \"country\": \"NO\", \"plan\": \"pro\"}\n"
        try Data(text.utf8).write(to: users)
        let binary = try Host.requireBinary()
        let single = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--by", "tier,country,plan,cuntry", "--format", "json"], timeout: 600)
        assertExit(single, 1)
        let out = dir.appendingPathComponent("out")
        let spark = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "scripts/spark-eval", "matrix", "--users", users.path, "--screen", "home", "--by", "tier,country,plan,cuntry",
            "--project", Host.moviesProject, "--host", binary.path, "--output", out.path, "--master", "local[2]", "--partitions", "3",
        ], timeout: 900)
        assertExit(spark, 1)
        // One host matrix run's rows, flattened as spark-eval writes them.
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? [String: Any])
        var expected: [NSDictionary] = []
        for segment in doc["segments"] as? [[String: Any]] ?? [] {
            for row in segment["rows"] as? [[String: Any]] ?? [] {
                var r = segment["segment"] as? [String: Any] ?? [:]
                r["segment_users"] = segment["users"]
                for k in ["kind", "id", "flow", "users"] { r[k] = row[k] }
                r["percent"] = (row["percent"] as? NSNumber)?.doubleValue
                expected.append(r as NSDictionary)
            }
        }
        let parts = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("part-") }.sorted()
        var actual: [NSDictionary] = []
        for p in parts {
            for line in try String(contentsOf: out.appendingPathComponent(p), encoding: .utf8).split(separator: "\n") {
                var r = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                r["percent"] = (r["percent"] as? NSNumber)?.doubleValue
                actual.append(r as NSDictionary)
            }
        }
        XCTAssertGreaterThan(expected.count, 100)
        XCTAssertTrue(expected.contains { $0["kind"] as? String == "edge" }, "graph edges are rows")
        XCTAssertTrue(expected.contains { ($0["users"] as? Int) == 0 }, "rows of zeros")
        XCTAssertEqual(actual.count, expected.count)
        XCTAssertTrue(actual == expected, "spark-eval matrix equals one host matrix run, row for row")
        XCTAssertEqual(spark.stderrLines.filter { $0.contains(": error: ") }, single.stderrLines.filter { $0.contains(": error: ") }, spark.transcript)
        XCTAssertEqual(spark.stderrLines.last, "spark-eval " + (single.stderrLines.last ?? ""), spark.transcript)
        let warnings = single.stderrLines.filter { $0.hasPrefix("warning: --by ") }
        XCTAssertEqual(warnings, ["warning: --by cuntry: no user has the attribute 'cuntry', so every user's cuntry is null; did you mean 'country'?"], single.transcript)
        XCTAssertEqual(spark.stderrLines.filter { $0.hasPrefix("warning: --by ") }, warnings, spark.transcript)
    }
    /// A record over the 16 MiB limit reaches `host eval` through Spark as it does through a
    /// file: each partition's process reports it at its line in the dataset and fails, so
    /// spark-eval gives one run's errors, summary and exit status. Spark hands lines over
    /// without their line break, and spark-eval adds one, so the last record (17 MiB, no final
    /// line break in the file) is the same error as in the single run.
    /// `spark-eval diff`: the partitions' counts added up are one `host diff --users` run's JSON,
    /// row for row and in order, with its exit status (1: changed); a bad line fails as one run
    /// fails (exit 2, nothing written).
    func testSparkDiffEqualsOneHostDiffRun() throws {
        try requireSpark()
        let (old, new, dir) = try PopulationDiffTests.project()
        // The sample app's population, in the project's copy.
        let users = dir.appendingPathComponent("population.jsonl")
        let binary = try Host.requireBinary()
        let single = try Host.run(["diff", old, new, "--users", users.path, "--by", "tier,country", "--format", "json"], timeout: 600)
        assertExit(single, 1)
        let out = dir.appendingPathComponent("diff.json")
        let spark = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "scripts/spark-eval", "diff", "--users", users.path, "--screen", old, "--screen", new, "--by", "tier,country",
            "--host", binary.path, "--output", out.path, "--master", "local[2]", "--partitions", "3",
        ], timeout: 900)
        assertExit(spark, 1)
        let want = try XCTUnwrap(try JSONSerialization.jsonObject(with: single.stdoutData) as? NSDictionary)
        let got = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? NSDictionary)
        XCTAssertGreaterThan((want["rows"] as? [Any])?.count ?? 0, 20, single.transcript)
        XCTAssertEqual(got, want, "spark-eval diff against one host diff run\n\(spark.transcript)")
        assertContains(spark.stderr, "spark-eval diff: 1000 users, none failed", in: spark)

        try Data(((try String(contentsOf: users, encoding: .utf8)) + "{\"tier\": \n").utf8).write(to: users)
        let bad = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "scripts/spark-eval", "diff", "--users", users.path, "--screen", old, "--screen", new, "--by", "tier",
            "--host", binary.path, "--master", "local[2]", "--partitions", "3",
        ], timeout: 900)
        assertExit(bad, 2)
        assertContains(bad.stderr, "population.jsonl:1001:", in: bad)
        XCTAssertEqual(bad.stdout, "", bad.transcript)
    }

    func testARecordOverTheLimitFailsAsInOneRun() throws {
        try requireSpark()
        let dir = try Host.temporaryFolder("spark-long")
        let users = dir.appendingPathComponent("users.jsonl")
        var text = ""
        for i in 1...200 { text += "{\"name\": \"u\(i)\", \"tier\": \"\(i % 2 == 0 ? "gold" : "free")\"}\n" }
        text += "{\"name\": \"big\", \"pad\": \"" + String(repeating: "a", count: 20 << 20) + "\"}\n"
        for i in 202...400 { text += "{\"name\": \"u\(i)\", \"tier\": \"gold\"}\n" }
        text += "{\"name\": \"last\", \"pad\": \"" + String(repeating: "b", count: 17 << 20) + "\"}"
        try Data(text.utf8).write(to: users)
        let binary = try Host.requireBinary()
        let single = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", users.path, "--jobs", "2", "--select", "hash"], timeout: 600)
        assertExit(single, 1)
        assertContains(single.stderr, "\(users.path):201: error: this record is longer than 16 MiB", in: single, "stderr")
        assertContains(single.stderr, "\(users.path):401: error: this record is longer than 16 MiB", in: single, "stderr")
        XCTAssertEqual(single.stderrLines.last, "eval: 401 users, 2 failed", single.transcript)
        let out = dir.appendingPathComponent("out")
        let spark = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", "scripts/spark-eval", "eval", "--users", users.path, "--screen", "home", "--project", Host.moviesProject,
            "--host", binary.path, "--output", out.path, "--master", "local[2]", "--partitions", "3", "--select", "hash",
        ], timeout: 900)
        assertExit(spark, 1)
        XCTAssertEqual(spark.stderrLines.filter { $0.contains(": error: ") }.sorted(), single.stderrLines.filter { $0.contains(": error: ") }.sorted(), spark.transcript)
        XCTAssertEqual(spark.stderrLines.last, "spark-eval " + (single.stderrLines.last ?? ""), spark.transcript)
        var joined = Data()
        for p in try FileManager.default.contentsOfDirectory(atPath: out.path).filter({ $0.hasPrefix("part-") }).sorted() {
            joined.append(try Data(contentsOf: out.appendingPathComponent(p)))
        }
        XCTAssertTrue(String(decoding: joined, as: UTF8.self) == single.stdout, "Spark's output is one host eval run's")
    }

    /// On a local master, a missing host binary, users file or project is said at once, before
    /// Spark starts (not as a failed task's stack trace). Needs no Spark.
    func testMissingInputsAreSaidBeforeSparkStarts() throws {
        let binary = try Host.requireBinary()
        let users = Host.repoRoot.appendingPathComponent("docs/examples/movies/population.jsonl").path
        let cases: [([String], String)] = [
            (["--users", users, "--host", "/no/such/host"], "spark-eval: no host binary at '/no/such/host'"),
            (["--users", "/no/such/users.jsonl", "--host", binary.path], "spark-eval: no users at '/no/such/users.jsonl' (--users)"),
            (["--users", users, "--host", binary.path, "--project", "/no/such/project"], "spark-eval: no project folder at '/no/such/project' (--project)"),
        ]
        for (args, message) in cases {
            let r = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "scripts/spark-eval", "eval", "--screen", "home", "--output", "/tmp/unused"] + args)
            assertExit(r, 1)
            assertContains(r.stderr, message, in: r, "stderr")
            XCTAssertFalse(r.stderr.contains("Traceback") || r.stderr.contains("Exception"), r.transcript)
        }
        // host matrix's --by checks and one screen for matrix, said before Spark starts (not by
        // every partition's process, each failing its task).
        let matrixCases: [([String], String)] = [
            (["--by", "tier,"], "--by 'tier,': an attribute name is empty"),
            (["--by", "tier, tier"], "--by 'tier, tier' names 'tier' twice"),
            (["--by", "tier", "--screen", "movie_detail"], "matrix takes one --screen"),
        ]
        for (args, message) in matrixCases {
            let r = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "scripts/spark-eval", "matrix", "--screen", "home", "--output", "/tmp/unused",
                                                                                    "--users", users, "--host", binary.path] + args)
            assertExit(r, 2)
            assertContains(r.stderr, message, in: r, "stderr")
            XCTAssertFalse(r.stderr.contains("Traceback") || r.stderr.contains("Exception"), r.transcript)
        }
    }
}
