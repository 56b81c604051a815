import Foundation
import XCTest

/// The clickable preview (docs/serve.md, "The preview as a prototype"): `GET /v1/preview/{id}`
/// walks a user's navigation with the simulator `host navigate` uses and answers the screen
/// they end on, laid out with its content and styles; the page draws it as HTML, follows taps,
/// and compares two users tap by tap. Headless Chromium drives the page (clicks through the
/// page's own `?click=` replay, which calls each button's `click()`), and screenshots are
/// compared with goldens in Tests/Fixtures/preview-goldens (README there: the tolerance).
final class PreviewPrototypeTests: XCTestCase {
    typealias Server = ServeCommandTests.Server

    func json(_ r: ServeCommandTests.Reply) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any], r.body)
    }

    func nodes(_ o: [String: Any]) -> [[String: Any]] {
        ((o["layout"] as? [String: Any])?["nodes"] as? [[String: Any]]) ?? []
    }

    func actions(_ o: [String: Any]) -> Set<String> {
        Set(nodes(o).compactMap { $0["action"] as? String })
    }

    /// Every text the page would show: measured lines, titles, subtitles, tab labels.
    func texts(_ o: [String: Any]) -> [String] {
        var out: [String] = []
        for n in nodes(o) {
            out += ((n["text"] as? [String: Any])?["lines"] as? [String]) ?? []
            for k in ["title", "subtitle", "image"] { if let s = n[k] as? String { out.append(s) } }
            for t in (n["tabs"] as? [[String: Any]]) ?? [] { if let s = t["title"] as? String { out.append(s) } }
        }
        return out
    }

    func testPreviewEndpointWalksEachUsersNavigation() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "2"])
        // The start: home, laid out with its content; each action is a node's.
        let gold = try json(try server.call("/v1/preview/home?profile=gold"))
        XCTAssertEqual(gold["screen"] as? String, "home")
        XCTAssertEqual(gold["stack"] as? String, "main: home")
        XCTAssertTrue(texts(gold).contains("Alien"), "item titles: \(texts(gold))")
        XCTAssertTrue(texts(gold).contains("Watched"), "tab labels and bar titles")
        XCTAssertTrue(actions(gold).contains("movie:42"))
        XCTAssertFalse(actions(gold).contains("upgrade"), "gold sees no upsell")
        let free = try json(try server.call("/v1/preview/home?profile=free"))
        XCTAssertTrue(actions(free).contains("upgrade"), "free's upsell banner is tappable")
        XCTAssertTrue(texts(free).contains { $0.contains("Go Gold") }, "\(texts(free))")
        // Frames and styles: every node has a frame inside the screen, the button a fill.
        let layout = try XCTUnwrap(free["layout"] as? [String: Any])
        XCTAssertEqual(layout["width"] as? Double, 393)
        let banner = try XCTUnwrap(nodes(free).first { $0["id"] as? String == "upsell_banner" })
        XCTAssertNotNil(banner["fill"] as? String)
        XCTAssertEqual((banner["frame"] as? [String: Any])?["height"] as? Double, 44)

        // A tap on an item: both users open the movie; gold can play in 4K, free is offered the upgrade.
        let goldMovie = try json(try server.call("/v1/preview/home?profile=gold&steps=movie:42"))
        XCTAssertEqual(goldMovie["screen"] as? String, "movie_detail")
        XCTAssertEqual(goldMovie["stack"] as? String, "main: home › movie_detail")
        XCTAssertEqual(goldMovie["params"] as? [String: String], ["id": "42"])
        XCTAssertTrue(actions(goldMovie).contains("play:4k"))
        let freeMovie = try json(try server.call("/v1/preview/home?profile=free&steps=movie:42"))
        XCTAssertEqual(freeMovie["screen"] as? String, "movie_detail")
        XCTAssertFalse(actions(freeMovie).contains("play:4k"))
        XCTAssertTrue(actions(freeMovie).contains("upgrade"))
        // The gold-only action does not exist for free: the walk stops there, on the movie.
        let goldPlays = try json(try server.call("/v1/preview/home?profile=gold&steps=movie:42,play:4k"))
        XCTAssertEqual(goldPlays["screen"] as? String, "player")
        XCTAssertTrue(goldPlays["stopped"] is NSNull)
        let freePlays = try json(try server.call("/v1/preview/home?profile=free&steps=movie:42,play:4k"))
        XCTAssertEqual(freePlays["screen"] as? String, "movie_detail")
        let stopped = try XCTUnwrap(freePlays["stopped"] as? [String: Any])
        XCTAssertEqual(stopped["input"] as? String, "play:4k")
        XCTAssertFalse((stopped["message"] as? String ?? "").isEmpty)
        XCTAssertEqual(freePlays["taken"] as? [String], ["movie:42"])
        // (The simulator alone would take it: free's screen offers `play` through the trailer
        // button. A tap is on a button, so the preview takes only the action the screen shows.)
        XCTAssertTrue((stopped["message"] as? String ?? "").contains("shows no 'play:4k'"), "\(stopped)")
        // The premium lounge is gold's (a rule hides its button from free): refused by the simulator.
        let freePremium = try json(try server.call("/v1/preview/home?profile=free&steps=premium"))
        XCTAssertEqual((freePremium["stopped"] as? [String: Any])?["input"] as? String, "premium")
        XCTAssertEqual(freePremium["screen"] as? String, "home")
        let goldPremium = try json(try server.call("/v1/preview/home?profile=gold&steps=premium"))
        XCTAssertEqual(goldPremium["screen"] as? String, "premium_lounge", "\(goldPremium["stopped"] ?? "")")
        // Back pops; a deep link opens its screen.
        let back = try json(try server.call("/v1/preview/home?profile=gold&steps=movie:42,back"))
        XCTAssertEqual(back["screen"] as? String, "home")
        let linked = try json(try server.call("/v1/preview/home?profile=free&link=app%3A%2F%2Fmovie%2F42"))
        XCTAssertEqual(linked["screen"] as? String, "movie_detail")
        let unknownLink = try json(try server.call("/v1/preview/home?profile=free&link=nope%3A%2F%2Fx"))
        XCTAssertEqual((unknownLink["stopped"] as? [String: Any])?["input"] as? String, "nope://x")
        XCTAssertEqual(unknownLink["screen"] as? String, "home")
        // Typed attributes (POST, as /v1/screens takes them).
        let posted = try server.call("/v1/preview/home?steps=movie:42", method: "POST",
                                     body: #"{"user": {"id": "1", "tier": "gold", "app_version": "5.3.0", "country": "NO"}}"#)
        XCTAssertEqual(posted.status, 200, posted.body)
        XCTAssertTrue(actions(try json(posted)).contains("play:4k"))
        // Same request, same bytes.
        XCTAssertEqual(try server.call("/v1/preview/home?profile=free&steps=movie:42").body,
                       try server.call("/v1/preview/home?profile=free&steps=movie:42").body)
    }

    func testPreviewEndpointRefusesBadInput() throws {
        let server = try Server(["--project", Host.moviesProject, "--workers", "1"])
        let cases: [(String, Int, String)] = [
            ("/v1/preview/nope?profile=gold", 404, "no screen 'nope'"),
            ("/v1/preview/home?profile=nobody", 422, "nobody"),
            ("/v1/preview/home?profile=gold&steps=:42", 422, "steps:"),
            ("/v1/preview/home?profile=gold&steps=" + Array(repeating: "back", count: 101).joined(separator: ","), 422, "at most 100"),
            ("/v1/preview/home?profile=gold&link=" + String(repeating: "x", count: 3000), 422, "at most 2048"),
            ("/v1/preview/home?profile=gold&device=toaster", 422, "toaster"),
        ]
        for (path, status, text) in cases {
            let r = try server.call(path)
            XCTAssertEqual(r.status, status, "\(path.prefix(80)): \(r.body)")
            XCTAssertEqual(r.headers["content-type"], "application/problem+json", r.body)
            XCTAssertTrue(r.body.contains(text), "\(path.prefix(80)): \(r.body)")
        }
        let malformed = try server.call("/v1/preview/home", method: "POST", body: "{")
        XCTAssertEqual(malformed.status, 422, malformed.body)
        // A step the screen does not offer is not an error of the request: the walk stops there.
        let r = try server.call("/v1/preview/home?profile=gold&steps=fly:away")
        XCTAssertEqual(r.status, 200, r.body)
        XCTAssertEqual((try json(r)["stopped"] as? [String: Any])?["input"] as? String, "fly:away")
        // The server still answers.
        XCTAssertEqual(try server.call("/healthz").status, 200)
    }

    // MARK: Headless Chromium

    func chromium() throws -> URL {
        guard let c = Host.which("chromium") ?? Host.which("chromium-browser") else {
            throw XCTSkip("chromium is not installed (scripts/test installs it; apt-get install -y chromium)")
        }
        return c
    }

    func browser(_ chromium: URL, _ dir: URL, _ args: [String]) throws -> HostResult {
        let common = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                      "--force-device-scale-factor=1", "--user-data-dir=" + dir.appendingPathComponent("profile").path,
                      "--virtual-time-budget=10000"]
        let r = try Host.runExecutable(chromium, common + args, timeout: 120)
        XCTAssertEqual(r.status, 0, r.transcript)
        return r
    }

    /// The two columns of a dumped page: the text of each `<section data-column=…>`.
    func column(_ dom: String, _ i: Int) -> String {
        let parts = dom.components(separatedBy: "<section data-column=\"")
        return parts.first { $0.hasPrefix("\(i)\"") } ?? ""
    }

    func testPreviewFollowsClicksInHeadlessChromium() throws {
        let chromium = try chromium()
        let server = try Server(["--project", Host.moviesProject, "--workers", "2"])
        let dir = try Host.temporaryFolder("preview-clicks")
        // Start: gold and free (the first two profiles of users.json) side by side on home, drawn as HTML.
        var dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents"]).stdout
        XCTAssertTrue(column(dom, 0).contains("data-screen=\"home\""), String(dom.prefix(3000)))
        XCTAssertTrue(column(dom, 0).contains("<option value=\"gold\" selected") || column(dom, 0).contains(">gold</option>"))
        XCTAssertTrue(column(dom, 0).contains("<div>Alien</div>") || column(dom, 0).contains(">Alien<"), "item titles as text")
        XCTAssertTrue(column(dom, 1).contains("data-action=\"upgrade\""), "free's upsell is a button")
        XCTAssertFalse(column(dom, 0).contains("data-action=\"upgrade\""), "gold has none")
        // A click on Alien in the left column: with linked taps both users open the movie.
        dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents&click=movie:42"]).stdout
        XCTAssertTrue(column(dom, 0).contains("data-screen=\"movie_detail\""), String(dom.prefix(4000)))
        XCTAssertTrue(column(dom, 1).contains("data-screen=\"movie_detail\""))
        XCTAssertTrue(column(dom, 0).contains("data-action=\"play:4k\""), "gold can play in 4K")
        XCTAssertFalse(column(dom, 1).contains("data-action=\"play:4k\""), "free cannot")
        XCTAssertTrue(column(dom, 0).contains("main: home › movie_detail"), "the stack")
        // Then Play in 4K: gold's player opens; free stays on the movie, told why.
        dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents&click=movie:42,play:4k"]).stdout
        XCTAssertTrue(column(dom, 0).contains("data-screen=\"player\""), String(column(dom, 0).prefix(3000)))
        XCTAssertTrue(column(dom, 1).contains("data-screen=\"movie_detail\""))
        XCTAssertTrue(column(dom, 1).contains("stopped at 'play:4k'"), String(column(dom, 1).prefix(3000)))
        // Back returns both to home (free drops the step it could not take).
        dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents&click=movie:42,back"]).stdout
        XCTAssertTrue(column(dom, 0).contains("data-screen=\"home\""), String(column(dom, 0).prefix(3000)))
        XCTAssertTrue(column(dom, 1).contains("data-screen=\"home\""))
        // A deep link from the address.
        dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents&link=app%3A%2F%2Fmovie%2F42"]).stdout
        XCTAssertTrue(column(dom, 1).contains("data-screen=\"movie_detail\""), String(column(dom, 1).prefix(3000)))
        // Unlinked: a tap goes to its own column only.
        dom = try browser(chromium, dir, ["--dump-dom", server.base + "/?noevents&unlinked&click=movie:42"]).stdout
        XCTAssertTrue(column(dom, 0).contains("data-screen=\"movie_detail\""))
        XCTAssertTrue(column(dom, 1).contains("data-screen=\"home\""))
        // No markup from data: the script builds the page with createElement and textContent only.
        let script = try server.call("/preview.js").body
        for markup in ["innerHTML", "insertAdjacentHTML", "outerHTML", "document.write"] {
            XCTAssertFalse(script.contains(markup), "the preview script uses \(markup)")
        }
    }

    /// Screenshots of the page against committed goldens (LOOM_UPDATE_GOLDENS=1 rewrites them).
    func testPreviewScreenshotsMatchGoldens() throws {
        let chromium = try chromium()
        guard let python = Host.which("python3") else { throw XCTSkip("python3 is not installed: the screenshots are not compared") }
        let server = try Server(["--project", Host.moviesProject, "--workers", "2"])
        let dir = try Host.temporaryFolder("preview-goldens")
        let goldens = Host.repoRoot.appendingPathComponent("Tests/Fixtures/preview-goldens")
        let compare = goldens.appendingPathComponent("compare_png.py")
        let update = ProcessInfo.processInfo.environment["LOOM_UPDATE_GOLDENS"] == "1"
        for (name, query) in [("home", "/?noevents"), ("movie_detail", "/?noevents&taps=movie:42"),
                              ("player_and_stopped", "/?noevents&taps=movie:42,play:4k")] {
            let shot = dir.appendingPathComponent(name + ".png")
            _ = try browser(chromium, dir, ["--window-size=1000,1080", "--screenshot=" + shot.path, server.base + query])
            let golden = goldens.appendingPathComponent(name + ".png")
            if update {
                try? FileManager.default.removeItem(at: golden)
                try FileManager.default.copyItem(at: shot, to: golden)
                continue
            }
            let r = try Host.runExecutable(python, [compare.path, golden.path, shot.path], timeout: 120)
            XCTAssertEqual(r.status, 0, "\(name): the screenshot \(shot.path) differs from \(golden.path): \(r.stdout)\(r.stderr) (LOOM_UPDATE_GOLDENS=1 rewrites the goldens)")
        }
        // The comparison can fail: a golden against another golden differs.
        let r = try Host.runExecutable(python, [compare.path, goldens.appendingPathComponent("home.png").path,
                                                goldens.appendingPathComponent("movie_detail.png").path], timeout: 120)
        XCTAssertEqual(r.status, 1, r.transcript)
    }
}
