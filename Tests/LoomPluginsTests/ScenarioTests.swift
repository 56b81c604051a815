import Foundation
import LoomCore
import LoomPlugins
import LoomTesting
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The scenario runner (`host test`), through its API, on the fixture projects in
/// Tests/Fixtures/scenarios/ (copied to a temporary folder, so snapshots are written there).
final class ScenarioTests: XCTestCase {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let fixtures = packageRoot + "/Tests/Fixtures/scenarios"
    static let standardPlugins = packageRoot + "/Plugins"

    var temp = ""

    override func setUpWithError() throws {
        temp = NSTemporaryDirectory() + "loom-scenarios-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: temp)
    }

    /// A fresh copy of a fixture project.
    func copy(_ fixture: String) throws -> String {
        let dest = temp + "/" + fixture
        try FileManager.default.copyItem(atPath: Self.fixtures + "/" + fixture, toPath: dest)
        return dest
    }

    func options(project: String? = nil, paths: [String] = [], jobs: Int = 2, ci: Bool = false) -> ScenarioOptions {
        var o = ScenarioOptions()
        o.project = project
        o.paths = paths
        o.jobs = jobs
        o.ci = ci
        o.standardPlugins = Self.standardPlugins
        return o
    }

    func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func failures(_ r: ScenarioReport) -> String {
        r.results.filter { $0.status == .failed }.map { "\($0.name): \($0.message ?? "")" }.joined(separator: "\n")
    }

    // MARK: Passing

    func testPassingScenariosRecordSnapshots() throws {
        let shop = try copy("shop")
        let report = ScenarioRunner.run(options(project: shop))
        XCTAssertEqual(report.failed, 0, failures(report))
        XCTAssertEqual(report.files.map { ($0.path as NSString).lastPathComponent }, ["home.lua", "navigation.lua", "segments.lua"])
        XCTAssertEqual(report.results.map(\.name), [
            "members see the banner and every product", "visitors are asked to join",
            "a member opens a product", "a deep link opens a product", "visitors join",
            "home per segment [member]", "home per segment [visitor]", "a visitor cannot tap a member product",
        ])
        XCTAssertEqual(report.summary, "8 passed, 0 failed")
        let snap = shop + "/scenarios/__snapshots__/home/members_see_the_banner_and_every_product.snap"
        let text = try XCTUnwrap(read(snap))
        XCTAssertTrue(text.contains("label #members_banner Label {\"text\":\"Member prices today\"}"), text)
        XCTAssertTrue(text.contains("• product ProductCell {\"price\":\"400\",\"title\":\"Espresso machine\"} → product:3"), text)
        XCTAssertTrue(text.contains("graph:\nnavigation from home (flow main)"), text)
        XCTAssertFalse(text.contains(shop), "snapshot paths are relative to the project")
        XCTAssertTrue(report.results[0].notes.contains { $0.hasPrefix("recorded ") })
        XCTAssertTrue(FileManager.default.fileExists(atPath: shop + "/scenarios/__snapshots__/segments/home_per_segment_visitor.snap"))
        // A second run compares and passes, recording nothing.
        let again = ScenarioRunner.run(options(project: shop))
        XCTAssertEqual(again.failed, 0, failures(again))
        XCTAssertTrue(again.results.allSatisfy { $0.notes.isEmpty })
        XCTAssertEqual(again.unreferencedSnapshots, [])
    }

    // MARK: A broken rule

    func testBrokenRuleFailsWithStructuralDiffAndRuleTrace() throws {
        let shop = try copy("shop")
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).failed, 0)
        // Break the rule: nobody is a member any more.
        let plugin = shop + "/plugins/shop/plugin.lua"
        try write(try XCTUnwrap(read(plugin)).replacingOccurrences(of: #"user.tier == "member""#, with: #"user.tier == "gold""#), plugin)
        let report = ScenarioRunner.run(options(project: shop))
        let first = try XCTUnwrap(report.results.first { $0.name == "members see the banner and every product" })
        XCTAssertEqual(first.status, .failed)
        let message = try XCTUnwrap(first.message)
        // The expectation fails at its line, with the rule's value.
        XCTAssertTrue(message.hasPrefix(shop + "/scenarios/home.lua:3: expected 'members_banner' to be visible on screen home for user member, but it is hidden"), message)
        XCTAssertTrue(message.contains("rule is_member = false"), message)
        // The snapshot of the segment scenario shows what changed, node by node.
        let segment = try XCTUnwrap(report.results.first { $0.name == "home per segment [member]" })
        XCTAssertEqual(segment.status, .failed)
        let diff = try XCTUnwrap(segment.message)
        XCTAssertTrue(diff.contains("segments.lua:4:"), diff)
        XCTAssertTrue(diff.contains("- removed home/members_banner (label #members_banner)"), diff)
        XCTAssertTrue(diff.contains("- removed home/products/items[2] (product \"Espresso machine\" → product:3)"), diff)
        XCTAssertTrue(diff.contains("+ added home/join (button #join)"), diff)
        XCTAssertTrue(diff.contains("~ changed home/products: props.item_count 3 → 2"), diff)
        XCTAssertTrue(diff.contains("graph:"), diff)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shop + "/scenarios/__snapshots__/segments/home_per_segment_member.snap.new"))
        // The visitor's home did not change.
        XCTAssertEqual(report.results.first { $0.name == "home per segment [visitor]" }?.status, .passed)
    }

    // MARK: CI

    func testMissingSnapshotUnderCIFailsAndWritesNothing() throws {
        let shop = try copy("shop")
        let report = ScenarioRunner.run(options(project: shop, ci: true))
        let r = try XCTUnwrap(report.results.first { $0.name == "members see the banner and every product" })
        XCTAssertEqual(r.status, .failed)
        XCTAssertTrue(r.message?.contains("is missing, and under CI=true snapshots are never recorded") ?? false, r.message ?? "")
        XCTAssertTrue(r.message?.hasPrefix(shop + "/scenarios/home.lua:6:") ?? false, r.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: shop + "/scenarios/__snapshots__"))
        XCTAssertEqual(report.failed, 3)   // the three snapshots
        // Recorded locally, CI then passes.
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).failed, 0)
        let ci = ScenarioRunner.run(options(project: shop, ci: true))
        XCTAssertEqual(ci.failed, 0, failures(ci))
    }

    // MARK: Pending snapshots

    func testMismatchWritesPendingAndAcceptMovesItIntoPlace() throws {
        let shop = try copy("shop")
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).failed, 0)
        let screen = shop + "/screens/home.json"
        try write(try XCTUnwrap(read(screen)).replacingOccurrences(of: "Member prices today", with: "Member prices all week"), screen)
        let report = ScenarioRunner.run(options(project: shop))
        let snap = shop + "/scenarios/__snapshots__/home/members_see_the_banner_and_every_product.snap"
        let r = try XCTUnwrap(report.results.first { $0.name == "members see the banner and every product" })
        XCTAssertEqual(r.status, .failed)
        XCTAssertTrue(r.message?.contains("~ changed home/members_banner: props.text \"Member prices today\" → \"Member prices all week\"") ?? false, r.message ?? "")
        let pending = try XCTUnwrap(read(snap + ".new"))
        XCTAssertTrue(pending.contains("Member prices all week"))
        XCTAssertTrue(try XCTUnwrap(read(snap)).contains("Member prices today"), "the golden file is kept")

        let accepted = ScenarioRunner.accept(options(project: shop))
        XCTAssertTrue(accepted.errors.isEmpty)
        XCTAssertEqual(Set(accepted.accepted.map(\.golden)).count, 2)   // home and the member's segment
        XCTAssertTrue(accepted.accepted.contains { $0.golden == snap })
        XCTAssertFalse(FileManager.default.fileExists(atPath: snap + ".new"))
        XCTAssertEqual(read(snap), pending)
        let again = ScenarioRunner.run(options(project: shop))
        XCTAssertEqual(again.failed, 0, failures(again))
    }

    func testUpdateReRecords() throws {
        let shop = try copy("shop")
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).failed, 0)
        let screen = shop + "/screens/home.json"
        try write(try XCTUnwrap(read(screen)).replacingOccurrences(of: "\"Kettle\"", with: "\"Tea kettle\""), screen)
        var o = options(project: shop)
        o.update = true
        let report = ScenarioRunner.run(o)
        XCTAssertEqual(report.failed, 0, failures(report))
        XCTAssertTrue(report.results.contains { $0.notes.contains { $0.hasPrefix("updated ") } })
        XCTAssertTrue(read(shop + "/scenarios/__snapshots__/home/members_see_the_banner_and_every_product.snap")?.contains("Tea kettle") ?? false)
    }

    // MARK: Unreferenced snapshots

    func testUnreferencedSnapshotsAreReportedAndPruned() throws {
        let shop = try copy("shop")
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).failed, 0)
        let stale = shop + "/scenarios/__snapshots__/home/renamed_scenario.snap"
        try write("old\n", stale)
        let orphanDir = shop + "/scenarios/__snapshots__/deleted_file"
        try FileManager.default.createDirectory(atPath: orphanDir, withIntermediateDirectories: true)
        try write("old\n", orphanDir + "/x.snap")
        let report = ScenarioRunner.run(options(project: shop))
        XCTAssertEqual(report.failed, 0)
        XCTAssertEqual(report.unreferencedSnapshots, [stale, orphanDir + "/x.snap"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: stale))
        // With a filter, not every scenario ran: nothing can be called unreferenced.
        var filtered = options(project: shop)
        filtered.filter = "visitors"
        XCTAssertEqual(ScenarioRunner.run(filtered).unreferencedSnapshots, [])
        var prune = options(project: shop)
        prune.prune = true
        let pruned = ScenarioRunner.run(prune)
        XCTAssertEqual(pruned.prunedSnapshots, [stale, orphanDir + "/x.snap"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphanDir))
        XCTAssertEqual(ScenarioRunner.run(options(project: shop)).unreferencedSnapshots, [])
    }

    // MARK: Reports

    func testJUnitAndJSONReportsCountTheFailure() throws {
        let syntax = try copy("syntax")
        let report = ScenarioRunner.run(options(project: syntax))
        XCTAssertEqual(report.summary, "2 passed, 2 failed")
        let xml = report.junitXML
        XCTAssertTrue(xml.contains("<testsuites name=\"loom scenarios\" tests=\"4\" failures=\"2\" skipped=\"0\""), xml)
        XCTAssertTrue(xml.contains("tests=\"2\" failures=\"1\""), xml)   // c_good.lua
        XCTAssertTrue(xml.contains("<testcase name=\"c: a failing expectation names its line\""), xml)
        XCTAssertTrue(xml.contains("<failure message=\"" + syntax + "/scenarios/c_good.lua:7: expected &apos;hello&apos; to be hidden"), xml)
        // Well-formed XML.
        let parser = XMLParser(data: Data(xml.utf8))
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")

        let json = report.json
        XCTAssertEqual(json["passed"], .int(2))
        XCTAssertEqual(json["failed"], .int(2))
        XCTAssertEqual(json["skipped"], .int(0))
        let results = try XCTUnwrap(json["results"]?.array)
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(results[0]["name"], .string("a: hello is visible"))
        XCTAssertEqual(results[0]["status"], .string("passed"))
        XCTAssertNil(results[0]["message"])
        XCTAssertNotNil(results[0]["duration_ms"]?.double)
        XCTAssertEqual(results[1]["status"], .string("failed"))
        XCTAssertEqual(results[1]["file"], .string(syntax + "/scenarios/b_broken.lua"))
    }

    // MARK: Parallelism

    func testParallelRunGivesTheSameOrderedResultsAsOneJob() throws {
        let shop = try copy("shop")
        // More files than workers, with a failure among them.
        let dir = shop + "/scenarios"
        for i in 0..<6 {
            try write("""
                scenario("extra \(i) member", function(t)
                  t:open("home", "member"):expect_visible("members_banner")
                end)
                scenario("extra \(i) fails", function(t)
                  local s = t:open("home", "visitor")
                  s:expect_visible("members_banner")
                end)
                """, dir + "/extra_\(i).lua")
        }
        XCTAssertEqual(ScenarioRunner.run(options(project: shop, jobs: 1)).results.count, 20)   // records snapshots first
        func key(_ r: ScenarioReport) -> [String] {
            r.results.map { "\($0.file)|\($0.name)|\($0.status)|\($0.line)|\($0.message ?? "")" }
        }
        let serial = ScenarioRunner.run(options(project: shop, jobs: 1))
        let parallel = ScenarioRunner.run(options(project: shop, jobs: 4))
        XCTAssertEqual(key(serial), key(parallel))
        XCTAssertEqual(serial.failed, 6)
        // Progress arrives in file order, whatever order the workers finish in.
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var files: [String] = []
        }
        let seen = Seen()
        let streamed = ScenarioRunner.run(options(project: shop, jobs: 8)) { outcome in
            seen.lock.lock()
            seen.files.append(outcome.file.path)
            seen.lock.unlock()
        }
        XCTAssertEqual(seen.files, streamed.files.map(\.path))
        XCTAssertEqual(key(streamed), key(serial))
    }

    // MARK: Errors in scenario files

    func testSyntaxErrorIsAFailureNamingFileAndLineAndTheOthersRun() throws {
        let syntax = try copy("syntax")
        let report = ScenarioRunner.run(options(project: syntax, jobs: 3))
        XCTAssertEqual(report.results.map(\.status), [.passed, .failed, .passed, .failed])
        let broken = report.results[1]
        XCTAssertEqual(broken.name, syntax + "/scenarios/b_broken.lua")
        XCTAssertEqual(broken.line, 3)
        XCTAssertTrue(broken.message?.hasPrefix(syntax + "/scenarios/b_broken.lua:3: syntax error: ") ?? false, broken.message ?? "")
        let failing = report.results[3]
        XCTAssertEqual(failing.name, "c: a failing expectation names its line")
        XCTAssertEqual(failing.line, 5)
        XCTAssertTrue(failing.message?.hasPrefix(syntax + "/scenarios/c_good.lua:7: expected 'hello' to be hidden on screen home for user visitor, but it is visible") ?? false, failing.message ?? "")
    }

    func testDSLFailuresAndHelpers() throws {
        let syntax = try copy("syntax")
        let file = syntax + "/scenarios/d_dsl.lua"
        try write("""
            scenario("eq", function(t)
              expect_eq({ 1, 2, a = "x" }, { 1, 3, a = "x" })
            end)
            scenario("tap lists the actions", function(t)
              local s = t:open("home", { user = "member", now = "2026-11-21T12:00:00Z" })
              s:tap("nowhere")
            end)
            scenario("skipped", function(t) t:skip("not yet") end)
            scenario("unknown user", function(t) t:open("home", { user = "platinum" }) end)
            scenario("a typo in expect_hidden fails", function(t)
              t:open("home", "member"):expect_hidden("helo")
            end)
            scenario("each user", function(t)
              t:each_user({ "member", "visitor" }, function(t, user)
                expect_eq(t:open("home"):user().profile, user)
                if user == "visitor" then error("boom") end
              end)
            end)
            scenario("print is captured", function(t)
              print("hello from", "the scenario")
              expect(false, "fail to show the output")
            end)
            """, file)
        var o = options(paths: [file])
        o.project = nil
        let report = ScenarioRunner.run(o)
        let byName = Dictionary(report.results.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byName["eq"]?.message, file + ":2: expected {1, 3, a = \"x\"}, got {1, 2, a = \"x\"}")
        XCTAssertEqual(byName["tap lists the actions"]?.message, file + ":6: cannot tap 'nowhere' on screen home for user member: it is not a visible action, nor the id or title of a visible component or item; visible actions: none")
        XCTAssertEqual(byName["skipped"]?.status, .skipped)
        XCTAssertEqual(byName["skipped"]?.message, "not yet")
        XCTAssertTrue(byName["unknown user"]?.message?.contains("unknown user 'platinum'; known profiles: 'member', 'visitor'") ?? false)
        XCTAssertTrue(byName["a typo in expect_hidden fails"]?.message?.contains("has no component or item 'helo' at all") ?? false)
        XCTAssertTrue(byName["a typo in expect_hidden fails"]?.message?.contains("did you mean 'hello'?") ?? false)
        XCTAssertEqual(byName["each user [member]"]?.status, .passed)
        XCTAssertEqual(byName["each user [visitor]"]?.message, file + ":16: boom")
        XCTAssertNil(byName["each user"])
        XCTAssertEqual(byName["print is captured"]?.output, ["hello from\tthe scenario"])
        XCTAssertEqual(report.summary, "1 passed, 6 failed, 1 skipped")
    }

    // MARK: The shipped scenarios

    /// The standard plugins' own scenarios and the movies example pass against their committed
    /// snapshots (as under CI: nothing is recorded).
}
