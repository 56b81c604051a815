import Foundation
import XCTest

/// `host serve` on a free loopback port, called with curl: the same JSON as `host run`, ETags,
/// problem documents for every bad request, and a server that keeps serving.
final class ServeCommandTests: XCTestCase {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    final class Server {
        let running: WatchCommandTests.Running
        let base: String

        init(_ args: [String]) throws {
            running = try WatchCommandTests.Running(["serve", "--port", "0"] + args)
            guard running.wait(for: "listening on http://", inStderr: true, timeout: 60) != nil,
                  let line = running.stderr.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                  let url = line.split(separator: " ").dropFirst(2).first
            else { throw HostTestError("the server did not start\n\(running.transcript)") }
            base = String(url)
        }

        func call(_ path: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:]) throws -> Reply {
            guard let curl = Host.which("curl") else { throw XCTSkip("curl is not installed") }
            let dir = try Host.temporaryFolder("serve-call")
            let headerFile = dir.appendingPathComponent("headers").path
            var args = ["-s", "-X", method, "-D", headerFile, "-o", dir.appendingPathComponent("body").path, "-w", "%{http_code}"]
            for (k, v) in headers { args += ["-H", "\(k): \(v)"] }
            if let body {
                let bodyFile = dir.appendingPathComponent("request").path
                try Data(body.utf8).write(to: URL(fileURLWithPath: bodyFile))
                args += ["-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile]
            }
            let r = try Host.runExecutable(curl, args + [base + path])
            var hs: [String: String] = [:]
            for line in (try? String(contentsOfFile: headerFile, encoding: .utf8))?.split(separator: "\r\n") ?? [] {
                if let i = line.firstIndex(of: ":") {
                    hs[line[..<i].lowercased()] = line[line.index(after: i)...].trimmingCharacters(in: .whitespaces)
                }
            }
            let b = (try? String(contentsOfFile: dir.appendingPathComponent("body").path, encoding: .utf8)) ?? ""
            return Reply(status: Int(r.stdout) ?? -1, headers: hs, body: b)
        }

        deinit { _ = running.stop() }
    }

    func testAnswersAsHostRunDoesWithETags() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "2"])
        for profile in ["gold", "free"] {
            let expected = try Host.run(["run", Host.homeScreen, "--user", profile, "--format", "json", "--no-graph"])
            let got = try server.call("/v1/screens/home?profile=\(profile)")
            XCTAssertEqual(got.status, 200, got.body)
            XCTAssertEqual(got.headers["content-type"], "application/json")
            XCTAssertEqual(got.body, expected.stdout, "GET for \(profile) must equal host run --format json --no-graph")
            let posted = try server.call("/v1/screens/home", method: "POST", body: #"{"profile": "\#(profile)"}"#)
            XCTAssertEqual(posted.body, expected.stdout)
            let tag = try XCTUnwrap(got.headers["etag"])
            let again = try server.call("/v1/screens/home?profile=\(profile)", headers: ["If-None-Match": tag])
            XCTAssertEqual(again.status, 304)
            XCTAssertEqual(again.body, "")
        }
        let withGraph = try server.call("/v1/screens/home?profile=gold&graph=1")
        let full = try Host.run(["run", Host.homeScreen, "--user", "gold", "--format", "json"])
        XCTAssertEqual(withGraph.body, full.stdout)
        // Attributes in the body: an anonymous user with gold's attributes sees gold's tree.
        let attrs = try server.call("/v1/screens/home", method: "POST",
                                    body: #"{"user": {"id": "174", "tier": "gold", "country": "NO", "app_version": "5.3.0", "churn_score": 0.1}}"#)
        XCTAssertEqual(attrs.status, 200)
        XCTAssertTrue(attrs.body.contains("premium_greeting"), attrs.body)
        // Params and the device, in the query or the body, as `host run --param` / `--device` give them.
        let params = try Host.run(["run", Host.moviesProject + "/screens/movie_detail.json", "--user", "gold", "--param", "id=42", "--format", "json", "--no-graph"])
        XCTAssertEqual(try server.call("/v1/screens/movie_detail?profile=gold&param.id=42").body, params.stdout)
        XCTAssertEqual(try server.call("/v1/screens/movie_detail", method: "POST", body: #"{"profile": "gold", "params": {"id": "42"}}"#).body, params.stdout)
        let ipad = try Host.run(["run", Host.homeScreen, "--user", "gold", "--device", "ipad", "--orientation", "landscape", "--format", "json", "--no-graph"])
        XCTAssertEqual(try server.call("/v1/screens/home", method: "POST", body: #"{"profile": "gold", "device": "ipad", "orientation": "landscape"}"#).body, ipad.stdout)
        // The device was this request's only: the next one has the default again.
        XCTAssertEqual(try server.call("/v1/screens/home?profile=gold").body, try Host.run(["run", Host.homeScreen, "--user", "gold", "--format", "json", "--no-graph"]).stdout)
        let badDevice = try server.call("/v1/screens/home", method: "POST", body: #"{"device": "nokia"}"#)
        XCTAssertEqual(badDevice.status, 422)
        XCTAssertTrue(badDevice.body.contains("unknown device 'nokia'"), badDevice.body)
        let list = try server.call("/v1/screens")
        XCTAssertTrue(list.body.contains("\"id\": \"home\""), list.body)
        let graph = try server.call("/v1/graph/home?profile=gold")
        XCTAssertTrue(graph.body.contains("\"edges\""), graph.body)
        // The wireframe is host render's SVG for the same user and device, byte for byte.
        let wire = try server.call("/v1/render/home?profile=gold&device=iphone-se-1st")
        XCTAssertEqual(wire.status, 200)
        XCTAssertEqual(wire.headers["content-type"], "image/svg+xml")
        let rendered = try Host.run(["render", Host.homeScreen, "--user", "gold", "--device", "iphone-se-1st"])
        XCTAssertEqual(wire.body, rendered.stdout)
        // The text size, as `--text-size` gives it (docs/accessibility.md): larger text, another picture.
        let detail = Host.moviesProject + "/screens/movie_detail.json"
        let big = try server.call("/v1/render/movie_detail?profile=gold&param.id=42&text_size=ax3")
        XCTAssertEqual(big.status, 200)
        XCTAssertEqual(big.body, try Host.run(["render", detail, "--user", "gold", "--param", "id=42", "--text-size", "ax3"]).stdout)
        XCTAssertTrue(big.body.contains(#"font-size="40""#), "Body text at AX3 is 40 points")
        XCTAssertNotEqual(big.body, try server.call("/v1/render/movie_detail?profile=gold&param.id=42").body)
        let badSize = try server.call("/v1/render/home?profile=gold&text_size=huge")
        XCTAssertEqual(badSize.status, 422)
        XCTAssertTrue(badSize.body.contains("a text size is one of xs"), badSize.body)
        XCTAssertEqual(try server.call("/v1/render/hom?profile=gold").status, 404)
        XCTAssertEqual(try server.call("/healthz").body, "ok\n")
        let metrics = try server.call("/metrics")
        XCTAssertTrue(metrics.body.contains("loom_requests_total{route=\"/v1/screens/{id}\",status=\"200\"}"), metrics.body)
        XCTAssertTrue(metrics.body.contains("loom_not_modified_total 2"), metrics.body)
    }

    func testBadRequestsGetProblemDocumentsAndTheServerKeepsServing() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "1", "--max-body", "1"])
        let malformed = try server.call("/v1/screens/home", method: "POST", body: #"{"profile": "#)
        XCTAssertEqual(malformed.status, 422)
        XCTAssertEqual(malformed.headers["content-type"], "application/problem+json")
        XCTAssertTrue(malformed.body.contains("\"status\": 422") && malformed.body.contains("request body:1:"), malformed.body)
        let unknownScreen = try server.call("/v1/screens/hom?profile=gold")
        XCTAssertEqual(unknownScreen.status, 404)
        XCTAssertTrue(unknownScreen.body.contains("did you mean 'home'"), unknownScreen.body)
        let unknownProfile = try server.call("/v1/screens/home?profile=platinum")
        XCTAssertEqual(unknownProfile.status, 422)
        XCTAssertTrue(unknownProfile.body.contains("platinum"), unknownProfile.body)
        // A profile name typed but not finished gets the one profile it begins (issue 37).
        let unfinished = try server.call("/v1/screens/home?profile=gold_at")
        XCTAssertEqual(unfinished.status, 422)
        XCTAssertTrue(unfinished.body.contains("did you mean 'gold_at_risk'"), unfinished.body)
        let unknownKey = try server.call("/v1/screens/home", method: "POST", body: #"{"profil": "gold"}"#)
        XCTAssertEqual(unknownKey.status, 422)
        XCTAssertTrue(unknownKey.body.contains("did you mean 'profile'"), unknownKey.body)
        let big = try server.call("/v1/screens/home", method: "POST", body: #"{"user": {"x": ""# + String(repeating: "a", count: 4000) + #""}}"#)
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(try server.call("/healthz").status, 200)
        XCTAssertEqual(try server.call("/v1/screens/home?profile=gold").status, 200)
    }

    func testAPluginThatLoopsFailsThatRequestOnly() throws {
        let dir = try Host.temporaryFolder("serve-loop")
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
        let free = try server.call("/v1/screens/home?profile=b")
        XCTAssertEqual(free.status, 200, "a screen that fails closed answers what could be resolved")
        XCTAssertTrue(free.body.contains("time limit") || free.body.contains("time budget"), free.body)
        XCTAssertFalse(free.body.contains("\"hello\""), "the looping rule's component is hidden\n\(free.body)")
        let gold = try server.call("/v1/screens/home?profile=a")
        XCTAssertEqual(gold.status, 200)
        XCTAssertTrue(gold.body.contains("\"hello\""), gold.body)
    }

    func testWatchReloadsGoodSetsAndKeepsServingOnBadOnes() throws {
        let project = try Host.temporaryFolder("serve-watch").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        let server = try Server(["--project", project.path, "--workers", "1", "--watch"])
        let before = try server.call("/v1/screens/home?profile=gold")
        XCTAssertTrue(before.body.contains("\"Heat\""), before.body)
        // The project as started is version 1 (docs/serve.md), not 0.
        XCTAssertTrue(try server.call("/v1/status").body.contains("\"version\": 1"))
        // The watched list comes from data/watched.json: a change there is a change of the project.
        let home = project.appendingPathComponent("data/watched.json")
        try (try String(contentsOf: home, encoding: .utf8)).replacingOccurrences(of: "\"title\": \"Heat\"", with: "\"title\": \"Heat (1995)\"")
            .write(to: home, atomically: false, encoding: .utf8)
        XCTAssertNotNil(server.running.wait(for: "reloaded after changes", inStderr: true), server.running.transcript)
        XCTAssertTrue(try server.call("/v1/screens/home?profile=gold").body.contains("Heat (1995)"))
        XCTAssertTrue(try server.call("/v1/status").body.contains("\"version\": 2"), "1 at start, 2 after one reload")
        // A plugin with a syntax error: not loaded, the previous set keeps serving, the page says why.
        let plugin = project.appendingPathComponent("plugins/movies/plugin.lua")
        try (try String(contentsOf: plugin, encoding: .utf8) + "\nthis is not lua\n").write(to: plugin, atomically: false, encoding: .utf8)
        XCTAssertNotNil(server.running.wait(for: "not reloaded (still serving the previous version)", inStderr: true), server.running.transcript)
        let status = try server.call("/v1/status")
        XCTAssertTrue(status.body.contains("plugin.lua:"), status.body)
        let still = try server.call("/v1/screens/home?profile=gold")
        XCTAssertEqual(still.status, 200)
        XCTAssertTrue(still.body.contains("Heat (1995)"), still.body)
        // The preview page is self-contained: no external scripts or styles.
        let page = try server.call("/")
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertFalse(page.body.contains("http://") || page.body.contains("https://"), "no CDN")
        let script = try server.call("/preview.js")
        XCTAssertTrue(script.body.contains("new EventSource('/v1/events')"))
        // Data reaches the page as text only, and no script runs but /preview.js.
        for markup in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
            XCTAssertFalse(script.body.contains(markup), "the preview script uses \(markup)")
            XCTAssertFalse(page.body.contains(markup), "the preview page uses \(markup)")
        }
        XCTAssertFalse(page.body.contains("<script>"), "no inline script")
        let csp = try XCTUnwrap(page.headers["content-security-policy"])
        for directive in ["default-src 'none'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"] {
            XCTAssertTrue(csp.contains(directive), "the CSP lacks \(directive): \(csp)")
        }
        XCTAssertFalse(csp.contains("unsafe-inline") || csp.contains("unsafe-eval"), csp)
        XCTAssertEqual(try server.call("/preview.css").headers["content-type"], "text/css; charset=utf-8")
    }

    /// The preview page in headless Chromium: both columns drawn from the API (trees, the
    /// difference between gold and free highlighted, graphs), and a screenshot of the page.
    func testPreviewRendersInHeadlessChromium() throws {
        guard let chromium = Host.which("chromium") ?? Host.which("chromium-browser") else {
            throw XCTSkip("chromium is not installed (scripts/test installs it; apt-get install -y chromium)")
        }
        let server = try Server(["--project", Host.moviesProject, "--workers", "2"])
        let dir = try Host.temporaryFolder("serve-chromium")
        let common = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                      "--user-data-dir=" + dir.appendingPathComponent("profile").path, "--virtual-time-budget=8000"]
        let page = server.base + "/?noevents"
        let dom = try Host.runExecutable(chromium, common + ["--dump-dom", page], timeout: 120)
        XCTAssertEqual(dom.status, 0, dom.transcript)
        // Gold's column shows the premium tab, highlighted as a difference; free's shows it hidden with its rule.
        XCTAssertTrue(dom.stdout.contains("stack #premium_tab"), dom.stdout.prefix(3000).description)
        XCTAssertTrue(dom.stdout.contains("<li class=\"diff\"><span>stack #premium_tab"), "the difference is highlighted")
        XCTAssertTrue(dom.stdout.contains("<li class=\"hidden\"><span>stack #premium_tab"), "hidden for free, with why")
        XCTAssertTrue(dom.stdout.contains("/v1/graph/home?format=svg&amp;profile=gold"), "graph pictures")
        XCTAssertTrue(dom.stdout.contains("<div class=\"phone\""), "each user's screen drawn as HTML (PreviewPrototypeTests)")
        let png = dir.appendingPathComponent("preview.png")
        let shot = try Host.runExecutable(chromium, common + ["--window-size=1200,900", "--screenshot=" + png.path, page], timeout: 120)
        XCTAssertEqual(shot.status, 0, shot.transcript)
        let data = try Data(contentsOf: png)
        // A PNG of the window's size (IHDR: width and height, big-endian, at bytes 16 and 20).
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = data[20..<24].reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(width, 1200)
        XCTAssertEqual(height, 900)
        XCTAssertGreaterThan(data.count, 20_000, "a page with content, not a blank one")
    }

    func testUsageErrors() throws {
        assertExit(try Host.run(["serve", "--port", "70000"]), 64)
        assertExit(try Host.run(["serve", "--workers", "0"]), 64)
        for bad in ["0", "86401", "1.5", "99999999999999999999999", "-3", "ten"] {
            let r = try Host.run(["serve", "--request-timeout", bad])
            assertExit(r, 64)
            assertContains(r.stderr, "--request-timeout takes a whole number of seconds from 1 to 86400", in: r)
        }
        let help = try Host.run(["serve", "--help"])
        assertContains(help.stdout, "--request-timeout", in: help)
        // The help is host-serve's own: `host serve` forwarded it.
        assertContains(help.stdout, "USAGE: host-serve", in: help)
        // `host help serve` describes the command without running anything.
        let described = try Host.run(["help", "serve"])
        assertContains(described.stdout, "Runs host-serve", in: described)
    }

    /// `host serve` runs the host-serve beside it: with none there, a clear error naming the
    /// path it looked at and how to build it (exit 1); with one there, that one (whatever it is),
    /// with every argument as given and its exit status.
    func testHostServeRunsTheServerBesideIt() throws {
        let host = try Host.requireBinary()
        let dir = try Host.temporaryFolder("serve-forward")
        let copy = dir.appendingPathComponent("host")
        try FileManager.default.copyItem(at: host, to: copy)
        let missing = try Host.runExecutable(copy, ["serve", "--port", "0"])
        assertExit(missing, 1)
        assertContains(missing.stderr, "no host-serve at \(dir.path)/host-serve", in: missing)
        assertContains(missing.stderr, "swift build --product host-serve", in: missing)
        // A stand-in host-serve that reports its arguments and exits 7.
        let fake = dir.appendingPathComponent("host-serve")
        try "#!/bin/sh\nprintf '%s|' \"$@\"\nexit 7\n".write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let r = try Host.runExecutable(copy, ["serve", "--port", "0", "a b", "--help", ""])
        assertExit(r, 7)
        XCTAssertEqual(r.stdout, "--port|0|a b|--help||")
    }

    /// Over HTTP, messages name the query string's inputs, not the command line's flags.
    func testMessagesNameTheQueryStringsInputs() throws {
        // The sample app with a screen whose label shows the param `id`.
        let project = try Host.temporaryFolder("serve-words").appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: project)
        let probe = project.appendingPathComponent("screens/probe.json")
        try #"{"screen": "probe", "root": {"type": "label", "id": "t", "meta": {"text": {"$param": "id"}}}}"#
            .write(to: probe, atomically: true, encoding: .utf8)
        let server = try Server(["--project", project.path, "--workers", "1"])
        let noParam = try server.call("/v1/screens/probe?profile=gold")
        XCTAssertEqual(noParam.status, 200)
        XCTAssertTrue(noParam.body.contains("give it with param.id=VALUE in the query string"), noParam.body)
        XCTAssertFalse(noParam.body.contains("--param"), noParam.body)
        let badNow = try server.call("/v1/screens/home?profile=gold&now=yesterday")
        XCTAssertEqual(badNow.status, 422)
        XCTAssertTrue(badNow.body.contains("now takes an ISO-8601 date"), badNow.body)
        XCTAssertFalse(badNow.body.contains("--now"), badNow.body)
        let badOrientation = try server.call("/v1/screens/home?profile=gold&orientation=sideways")
        XCTAssertEqual(badOrientation.status, 422)
        XCTAssertFalse(badOrientation.body.contains("--orientation"), badOrientation.body)
        let anonymous = try server.call("/v1/screens/home")
        XCTAssertTrue(anonymous.body.contains("no profile"), anonymous.body)
        XCTAssertFalse(anonymous.body.contains("--user"), anonymous.body)
        // The command line keeps its own words.
        let cli = try Host.run(["run", probe.path, "--user", "gold", "--no-graph"])
        assertContains(cli.stderr, "give it with --param id=VALUE", in: cli)
    }

    /// `host` does not depend on LoomServe or SwiftNIO (so building it compiles no SwiftNIO):
    /// the closure of its target's dependencies in the manifest, as SwiftPM reads it.
    func testHostDoesNotDependOnTheServer() throws {
        guard let swift = Host.which("swift") else { throw XCTSkip("swift is not on PATH") }
        // A scratch folder of its own: the repository's .build is locked while `swift test` runs.
        let scratch = try Host.temporaryFolder("dump-package")
        let r = try Host.runExecutable(swift, ["package", "dump-package", "--package-path", Host.repoRoot.path,
                                               "--scratch-path", scratch.path], timeout: 300)
        assertExit(r, 0)
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let targets = try XCTUnwrap(manifest["targets"] as? [[String: Any]])
        var byName: [String: [Any]] = [:]
        for t in targets { if let n = t["name"] as? String { byName[n] = t["dependencies"] as? [Any] ?? [] } }
        // Each dependency is {"byName": [name, …]}, {"target": [name, …]} or {"product": [name, package, …]}.
        func names(_ dep: Any) -> (target: String?, product: String?) {
            guard let d = dep as? [String: Any] else { return (nil, nil) }
            if let a = (d["byName"] ?? d["target"]) as? [Any], let n = a.first as? String { return (n, nil) }
            if let a = d["product"] as? [Any], let n = a.first as? String { return (nil, n) }
            return (nil, nil)
        }
        var seen: Set<String> = [], products: Set<String> = [], queue = ["host"]
        while let t = queue.popLast() {
            guard seen.insert(t).inserted else { continue }
            for dep in byName[t] ?? [] {
                let (target, product) = names(dep)
                if let target, byName[target] != nil { queue.append(target) }
                if let product { products.insert(product) }
                if let target, byName[target] == nil { products.insert(target) }
            }
        }
        XCTAssertTrue(seen.contains("LoomCore") && seen.contains("LoomCommandLine"), "the walk found host's libraries: \(seen.sorted())")
        XCTAssertFalse(seen.contains("LoomServe"), "host depends on LoomServe: \(seen.sorted())")
        for nio in ["NIOCore", "NIOPosix", "NIOHTTP1"] {
            XCTAssertFalse(products.contains(nio), "host depends on \(nio): \(products.sorted())")
        }
        XCTAssertTrue(products.contains("ArgumentParser"), "products found: \(products.sorted())")
        // host-serve is the one that does.
        XCTAssertTrue((byName["host-serve"] ?? []).contains { names($0).target == "LoomServe" })
    }
}
