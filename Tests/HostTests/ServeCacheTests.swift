import Foundation
import XCTest

/// `host serve`'s response cache (docs/serve.md, "The response cache"): a kept answer is the
/// uncached one byte for byte (status, headers, body, ETag, 304), `now` is part of what keys it
/// (a time-dependent screen is not served across its window), answers that depend on more than
/// the request are never kept, the bounds hold against a client sending a new key each time, and
/// a reload drops every answer.
final class ServeCacheTests: XCTestCase {
    typealias Server = ServeCommandTests.Server

    /// A counter or gauge from `/metrics`.
    func metric(_ server: Server, _ name: String) throws -> Int {
        let text = try server.call("/metrics").body
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }),
              let n = Int(line.split(separator: " ").last ?? "") else {
            XCTFail("no \(name) in /metrics:\n\(text)")
            return -1
        }
        return n
    }

    func assertSame(_ a: ServeCommandTests.Reply, _ b: ServeCommandTests.Reply, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.status, b.status, what, file: file, line: line)
        XCTAssertEqual(a.body, b.body, what, file: file, line: line)
        for h in ["content-type", "etag", "x-content-type-options", "content-length"] {
            XCTAssertEqual(a.headers[h], b.headers[h], "\(what): \(h)", file: file, line: line)
        }
    }

    func testCachedAnswersAreTheUncachedOnesByteForByte() throws {
        let cached = try Server(["--project", Host.moviesProject, "--workers", "1"])
        let uncached = try Server(["--project", Host.moviesProject, "--workers", "1", "--cache-entries", "0"])
        let screens = try FileManager.default.contentsOfDirectory(atPath: Host.repoRoot.appendingPathComponent(Host.moviesProject + "/screens").path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
        XCTAssertGreaterThanOrEqual(screens.count, 7)
        let profiles = ["gold", "free", "guest", "gold_at_risk"]
        for screen in screens {
            for profile in profiles {
                for query in ["?profile=\(profile)", "?profile=\(profile)&param.id=42", "?profile=\(profile)&locale=nb-NO&explain=1"] {
                    let path = "/v1/screens/\(screen)" + query
                    let want = try uncached.call(path)
                    let first = try cached.call(path)
                    let second = try cached.call(path)
                    assertSame(first, want, "GET \(path), first")
                    assertSame(second, want, "GET \(path), again")
                    if let tag = want.headers["etag"] {
                        let notModified = try cached.call(path, headers: ["If-None-Match": tag])
                        XCTAssertEqual(notModified.status, 304, path)
                        XCTAssertEqual(notModified.headers["etag"], tag)
                        XCTAssertEqual(notModified.body, "")
                    }
                }
                let body = #"{"profile": "\#(profile)", "user": {"churn_score": 0.95}, "params": {"id": "42"}}"#
                let want = try uncached.call("/v1/screens/\(screen)", method: "POST", body: body)
                for round in 1...2 {
                    assertSame(try cached.call("/v1/screens/\(screen)", method: "POST", body: body), want, "POST \(screen) \(profile), \(round)")
                }
            }
        }
        XCTAssertGreaterThan(try metric(cached, "loom_response_cache_hits_total"), 0, "the second requests were answered from the cache")
        XCTAssertEqual(try metric(uncached, "loom_response_cache_hits_total"), 0)
        XCTAssertEqual(try metric(uncached, "loom_response_cache_entries"), 0)
    }

    /// The sample's Oslo lunch banner (`schedule`, 11:00–13:00 Europe/Oslo on weekdays): the same
    /// request at different `now` values, in and out of the window, alternating.
    func testATimeDependentScreenIsNotServedAcrossItsWindow() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "1"])
        let inside = "2026-06-01T10:00:00Z"   // Monday 12:00 in Oslo
        let outside = "2026-06-01T08:00:00Z"  // Monday 10:00 in Oslo
        var expected: [String: String] = [:]
        for now in [inside, outside] {
            expected[now] = try Host.run(["run", Host.homeScreen, "--user", "gold", "--now", now, "--format", "json", "--no-graph"]).stdout
        }
        XCTAssertTrue(expected[inside]!.contains("\"lunch_banner\""))
        XCTAssertFalse(expected[outside]!.contains("\"lunch_banner\""))
        for now in [inside, outside, inside, outside, inside] {
            XCTAssertEqual(try server.call("/v1/screens/home?profile=gold&now=\(now)").body, expected[now], "GET at \(now)")
            XCTAssertEqual(try server.call("/v1/screens/home", method: "POST", body: #"{"profile": "gold", "now": "\#(now)"}"#).body, expected[now], "POST at \(now)")
        }
    }

    /// Answers that depend on more than the request are not kept: a rule stopped by its time
    /// budget (the machine's load decides), and a screen given data in the request.
    func testAnswersWithErrorsOrRequestDataAreNotKept() throws {
        let dir = try Host.temporaryFolder("serve-cache-loop")
        try Host.write([
            "loom.json": #"{"entry": "home"}"#,
            "users.json": #"{"a": {"tier": "gold"}, "b": {"tier": "free"}}"#,
            "screens/home.json": #"{"screen": "home", "root": {"type": "stack", "id": "root", "children": [{"type": "label", "id": "hello", "meta": {"text": "Hi"}, "rule": "spins_for_free"}]}}"#,
            "plugins/spin/plugin.lua": """
                return { name = "spin", version = "1.0.0", api = 1, register = function(host)
                  host.rule("spins_for_free", function(user) if user.tier == "free" then while true do end end return true end)
                end }
                """,
        ], under: dir)
        let server = try Server(["--project", dir.path, "--workers", "1", "--lua-time-limit", "50"])
        for _ in 0..<2 { XCTAssertEqual(try server.call("/v1/screens/home?profile=b").status, 200) }
        XCTAssertEqual(try metric(server, "loom_response_cache_hits_total"), 0, "an answer with errors is not kept")
        XCTAssertEqual(try metric(server, "loom_response_cache_entries"), 0)
        for _ in 0..<2 { XCTAssertTrue(try server.call("/v1/screens/home?profile=a").body.contains("\"hello\"")) }
        XCTAssertEqual(try metric(server, "loom_response_cache_hits_total"), 1)

        let movies = try Server(["--project", Host.moviesProject, "--workers", "1"])
        let body = #"{"profile": "gold", "data": {"watched": [], "wishlist": [], "recommendations": []}}"#
        let want = try Host.run(["run", Host.homeScreen, "--user", "gold", "--format", "json", "--no-graph",
                                 "--data", "watched=" + (try emptyList()), "--data", "wishlist=" + (try emptyList()),
                                 "--data", "recommendations=" + (try emptyList())]).stdout
        for _ in 0..<2 { XCTAssertEqual(try movies.call("/v1/screens/home", method: "POST", body: body).body, want) }
        XCTAssertEqual(try metric(movies, "loom_response_cache_entries"), 0, "a screen expanded with the request's data is not kept")
    }

    func emptyList() throws -> String {
        let f = try Host.temporaryFolder("serve-cache-data").appendingPathComponent("empty.json")
        try Data("[]".utf8).write(to: f)
        return f.path
    }

    /// A client sending a new key each time: the cache stays within `--cache-entries`, answers
    /// stay right.
    func testCacheBustingStaysWithinTheBounds() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "1", "--cache-entries", "3"])
        let want = try server.call("/v1/screens/settings?profile=gold").body
        for i in 0..<20 {
            XCTAssertEqual(try server.call("/v1/screens/settings?profile=gold&bust=\(i)").body, want)
            XCTAssertLessThanOrEqual(try metric(server, "loom_response_cache_entries"), 3)
        }
        for bad in ["-1", "1000001", "ten"] { assertExit(try Host.run(["serve", "--cache-entries", bad]), 64) }
        for bad in ["0", "4097"] { assertExit(try Host.run(["serve", "--cache-mb", bad]), 64) }
        // The bench's HTTP floor is not a user's flag: not in --help; a file it cannot read is an error.
        let help = try Host.run(["serve", "--help"])
        assertContains(help.stdout, "--cache-entries", in: help)
        XCTAssertFalse(help.stdout.contains("bench-static"), help.stdout)
        let missing = try Host.run(["serve", "--bench-static", "/nonexistent/body.json", "--port", "0"])
        assertExit(missing, 1)
        assertContains(missing.stderr, "--bench-static /nonexistent/body.json: ", in: missing)
    }

    /// `--watch`: a reload drops the kept answers; the next request sees the new project.
    func testAReloadDropsTheCache() throws {
        let project = try Host.temporaryFolder("serve-cache-watch").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        let server = try Server(["--project", project.path, "--workers", "1", "--watch"])
        for _ in 0..<3 { XCTAssertTrue(try server.call("/v1/screens/home?profile=gold").body.contains("\"Heat\"")) }
        XCTAssertEqual(try metric(server, "loom_response_cache_hits_total"), 2)
        XCTAssertEqual(try metric(server, "loom_response_cache_entries"), 1)
        let watched = project.appendingPathComponent("data/watched.json")
        try (try String(contentsOf: watched, encoding: .utf8)).replacingOccurrences(of: "\"title\": \"Heat\"", with: "\"title\": \"Heat (1995)\"")
            .write(to: watched, atomically: false, encoding: .utf8)
        XCTAssertNotNil(server.running.wait(for: "reloaded after changes", inStderr: true), server.running.transcript)
        XCTAssertEqual(try metric(server, "loom_response_cache_entries"), 0)
        XCTAssertTrue(try server.call("/v1/screens/home?profile=gold").body.contains("Heat (1995)"))
        XCTAssertTrue(try server.call("/v1/screens/home?profile=gold").body.contains("Heat (1995)"))
    }
}
