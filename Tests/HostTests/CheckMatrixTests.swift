import Foundation
import XCTest

/// `host check` over the matrix (issue 37): every screen × the anonymous user and every profile ×
/// every device of loom.json's "devices", example parameters, style values on every device,
/// layout findings with fixes, --strict, JSON, and agreement with `host run`.
final class CheckMatrixTests: XCTestCase {
    /// A shop: `home` leads to `order` with `order:7` (and the deep link `app://order/latest`
    /// with `order:99`), and to `receipt`, whose bound `ref` nothing gives a value for; the
    /// label style breaks on the iPad only (`label~ipad.json`) and in `label-568h.json`, which
    /// `label-667h.json` overrides on taller phones.
    func makeShop(devices: String? = nil) throws -> URL {
        let root = try Host.temporaryFolder("check-matrix")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": devices.map { #"{"name": "shop", "entry": "main", "devices": \#($0)}"# } ?? #"{"name": "shop", "entry": "main"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "flows.json": """
                {"flows": {"main": {"presentation": "stack", "start": "home",
                  "steps": {"order": {"push": "order"}, "receipt": {"push": "receipt"}},
                  "links": {"app://order/{id}": "order:{id}", "app://order/latest": "order:99"}}}}
                """,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "vstack", "id": "root", "children": [
                  {"type": "button", "id": "open", "meta": {"title": "Order 7"}, "action": "order:7"},
                  {"type": "button", "id": "receipt", "meta": {"title": "Receipt"}, "action": "receipt"}
                ]}}
                """,
            "screens/order.json": """
                {"screen": "order", "root": {"type": "container", "id": "root", "children": [
                  {"type": "label", "id": "number", "meta": {"text": {"$param": "id"}}, "constraints": ["left == parent.left + 16", "width == 200"]}
                ]}}
                """,
            "screens/receipt.json": """
                {"screen": "receipt", "root": {"type": "vstack", "id": "root", "children": [
                  {"type": "label", "id": "ref", "meta": {"text": {"$param": "ref"}}}
                ]}}
                """,
            "styles/label.json": #"{"lines": 0}"#,
            "styles/label-568h.json": ##"{"text_color": "#12345G"}"##,
            "styles/label-667h.json": ##"{"text_color": "#123456"}"##,
            "styles/label~ipad.json": #"{"text_color": "blue-ish"}"#,
        ], under: root)
        return root
    }

    func testTheSummaryCountsScreensProfilesAndDevices() throws {
        let root = try makeShop()
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 1)
        // P counts the anonymous user and the two profiles; D the three default devices.
        assertMatches(r.stdout, #"^checked 3 screens × 3 profiles × 3 devices: 2 errors, \d+ warnings$"#, in: r, "the last line")
        let one = try Host.run(["check", "order", "--project", root.path])
        assertMatches(one.stdout, #"^checked 1 screen × 3 profiles × 3 devices: "#, in: one, "singular")
    }

    /// The issue's screen (issue 39): a root vstack of a label and three buttons is pinned to
    /// the safe area and as tall as its content on every default device, so `host check`
    /// reports no ambiguity and nothing outside the safe area, only the buttons' intrinsic
    /// 32-point height as a small tap target; with `height >= 44` on the buttons, no layout
    /// warning at all.
    func testALabelAndThreeButtonsCheckCleanOnEveryDevice() throws {
        let root = try Host.temporaryFolder("check-defaults")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        func screen(_ constraints: String) -> String {
            let buttons = ["Sign in", "Register", "Later"].enumerated().map { k, t in
                #"{"type": "button", "id": "b\#(k)", "meta": {"title": "\#(t)"}, "action": "close"\#(constraints)}"#
            }.joined(separator: ", ")
            return #"{"screen": "home", "root": {"type": "vstack", "id": "main", "meta": {"spacing": 8}, "children": [{"type": "label", "id": "title", "meta": {"text": "Welcome"}}, \#(buttons)]}}"#
        }
        try Host.write(["loom.json": #"{"name": "defaults"}"#, "screens/home.json": screen("")], under: root)
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 0)
        for bad in ["ambiguous", "unsatisfiable", "outside_screen", "outside_safe_area", "truncated"] {
            XCTAssertFalse(r.stderr.contains(bad), "\(bad): \(r.transcript)")
        }
        assertContains(r.stderr, "warning: small_tap_target: #b0 (root/children[1])", in: r, "stderr")
        try Host.write(["screens/home.json": screen(#", "constraints": ["height >= 44"]"#)], under: root)
        let tall = try Host.run(["check", "--project", root.path])
        assertExit(tall, 0)
        assertMatches(tall.stdout, #"^checked 1 screen × 1 profile × 3 devices: 0 errors, 0 warnings$"#, in: tall, "the last line")
        XCTAssertEqual(tall.stderr, "", tall.transcript)
    }

    /// A root stack whose content is taller than the safe area: its children below it are
    /// reported with the fix that can work (the content; no constraint of the child could move
    /// it).
    func testARootStackTooTallForTheSafeAreaSaysToShortenIt() throws {
        let root = try Host.temporaryFolder("check-root-stack")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let labels = (0..<40).map { #"{"type": "label", "id": "l\#($0)", "meta": {"text": "Line \#($0)"}}"# }.joined(separator: ", ")
        try Host.write([
            "loom.json": #"{"name": "rs", "devices": ["iphone-se-1st"]}"#,
            "screens/home.json": #"{"screen": "home", "root": {"type": "vstack", "id": "main", "children": [\#(labels)]}}"#,
        ], under: root)
        let r = try Host.run(["check", "--project", root.path])
        // The iPhone SE's safe area reaches the screen's bottom: below it is off the screen.
        assertContains(r.stderr, "warning: outside_screen: #l", in: r, "stderr")
        assertContains(r.stderr, "fix: the root vstack 'main' is pinned to the safe area's top and sides and is as large as its content, which does not fit in the safe area: make the content smaller (fewer or smaller children, less spacing) or move part of it to another screen", in: r, "stderr")
        XCTAssertFalse(r.stderr.contains("ambiguous"), r.transcript)
    }

    /// A constraint that does not parse is found before laying out and again by the layout on
    /// every device: it is reported once.
    func testABadConstraintIsReportedOnce() throws {
        let root = try Host.temporaryFolder("check-bad-constraint")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "bad"}"#,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "container", "id": "root", "children": [
                  {"type": "label", "id": "title", "meta": {"text": "Hi"}, "constraints": ["top = safe_area.top"]}
                ]}}
                """,
        ], under: root)
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 1)
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("unknown relation '='") }
        XCTAssertEqual(lines.count, 1, "the constraint error once, not once more per device and user:\n\(r.stderr)")
    }

    func testAStyleValueThatBreaksOnlyOneDeviceNamesIt() throws {
        let root = try makeShop()
        let r = try Host.run(["check", "--project", root.path])
        assertMatches(r.stderr, #"(?m)^\S*styles/label~ipad\.json:1:\d+: error: 'text_color': .*"blue-ish" \(on ipad\)$"#, in: r, "stderr")
        // Overridden by label-667h.json on the iPhone 15, reported all the same, for the
        // devices that load it.
        assertMatches(r.stderr, ##"(?m)^\S*styles/label-568h\.json:1:\d+: error: 'text_color': .*"#12345G" \(on iphone-se-1st, iphone-15\)$"##, in: r, "stderr")
        // `host run` on the iPhone 15 never sees the overridden value.
        let run = try Host.run(["run", "order", "--project", root.path, "--device", "iphone-15", "--param", "id=7", "--no-graph"])
        assertLacks(run.stderr, "12345G", in: run, "run stderr")
    }

    func testAnAmbiguousLayoutIsAWarningWithItsFix() throws {
        let root = try makeShop()
        let r = try Host.run(["check", "order", "--project", root.path, "--format", "json"])
        let o = try r.jsonObject()
        let diagnostics = o["diagnostics"] as? [[String: Any]] ?? []
        let ambiguous = diagnostics.first { ($0["message"] as? String)?.hasPrefix("ambiguous: ambiguous layout: the constraints do not determine top of #number") == true }
        XCTAssertEqual(ambiguous?["severity"] as? String, "warning", r.transcript)
        XCTAssertEqual((ambiguous?["file"] as? String)?.hasSuffix("/screens/order.json"), true, r.transcript)
        XCTAssertEqual(ambiguous?["line"] as? Int, 2, r.transcript)
        XCTAssertEqual(ambiguous?["fix"] as? String, "add 'top == parent.top' to its constraints (its current value), or constraints relating it to its siblings", r.transcript)
        // Text: the fix after the message, on the same line.
        let t = try Host.run(["check", "order", "--project", root.path])
        assertMatches(t.stderr, #"(?m)^\S*screens/order\.json:2:\d+: warning: ambiguous: .*; fix: add 'top == parent\.top'"#, in: t, "stderr")
        // `host run --layout` shows the same fix with the finding.
        let run = try Host.run(["run", "order", "--project", root.path, "--param", "id=7", "--layout", "--no-graph"])
        assertContains(run.stdout, "ambiguous root/children[0]: ambiguous layout: the constraints do not determine top of #number (root/children[0]) (", in: run, "stdout")
        assertContains(run.stdout, "screens/order.json:2:3); fix: add 'top == parent.top'", in: run, "stdout")
    }

    func testAParameterisedScreenIsResolvedWithItsExamples() throws {
        let root = try makeShop()
        let r = try Host.run(["check", "--project", root.path, "--format", "json"])
        let o = try r.jsonObject()
        let byFile = o["params"] as? [String: [[String: String]]] ?? [:]
        let params = Dictionary(uniqueKeysWithValues: byFile.map { (String($0.key.split(separator: "/").suffix(2).joined(separator: "/")), $0.value) })
        // The action `order:7` and the deep link `app://order/latest` → `order:99`; the link
        // `app://order/{id}` only names the parameter.
        XCTAssertEqual(params["screens/order.json"], [["id": "7"], ["id": "99"]], r.transcript)
        XCTAssertEqual(params["screens/home.json"], [[:]], r.transcript)
        assertLacks(r.stderr, "which this resolution lacks", in: r, "stderr")
        assertLacks(r.stderr, "<id>", in: r, "stderr (no placeholder values)")
    }

    func testAParameterWithNoExampleIsAWarningNamingIt() throws {
        let root = try makeShop()
        let r = try Host.run(["check", "receipt", "--project", root.path])
        assertMatches(r.stderr, #"(?m)^\S*screens/receipt\.json:2:\d+: warning: meta 'text' of 'label' is bound to param 'ref', and no action, flow or deep link of the project gives an example value for it"#, in: r, "stderr")
        assertLacks(r.stderr, "which this resolution lacks", in: r, "stderr")
        XCTAssertEqual(lines(of: r.stderr, matching: "param 'ref'").count, 1, r.transcript)
    }

    func testStrictMakesWarningsErrors() throws {
        let root = try Host.temporaryFolder("check-strict")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"devices": ["iphone-15"]}"#,
            "screens/receipt.json": #"{"screen": "receipt", "root": {"type": "label", "id": "ref", "meta": {"text": {"$param": "ref"}}, "constraints": ["size == {100, 44}", "center == parent.center"]}}"#,
        ], under: root)
        let plain = try Host.run(["check", "--project", root.path])
        assertExit(plain, 0)
        assertMatches(plain.stdout, #"^checked 1 screen × 1 profile × 1 device: 0 errors, [1-9]\d* warnings?$"#, in: plain, "stdout")
        let strict = try Host.run(["check", "--project", root.path, "--strict"])
        assertExit(strict, 1)
        assertMatches(strict.stdout, #"^checked 1 screen × 1 profile × 1 device: [1-9]\d* errors?, 0 warnings$"#, in: strict, "stdout")
        assertContains(strict.stderr, "error: meta 'text' of 'label' is bound to param 'ref'", in: strict, "stderr")
        let json = try Host.run(["check", "--project", root.path, "--strict", "--format", "json"])
        let o = try json.jsonObject()
        XCTAssertEqual(o["strict"] as? Bool, true, json.transcript)
        XCTAssertEqual(o["warnings"] as? Int, 0, json.transcript)
        XCTAssertEqual(o["summary"] as? String, strict.stdout.trimmingCharacters(in: .newlines), json.transcript)
    }

    func testDevicesAreValidated() throws {
        let root = try makeShop(devices: #"["iphone-15", "ipda", "iphone-15", 3]"#)
        let r = try Host.run(["check", "home", "--project", root.path])
        assertExit(r, 1)
        assertMatches(r.stderr, #"(?m)^\S*loom\.json:1:\d+: error: "devices": unknown device 'ipda'; did you mean 'ipad'\?"#, in: r, "stderr")
        assertMatches(r.stderr, #"(?m)^\S*loom\.json:1:\d+: error: device 'iphone-15' is listed twice in "devices""#, in: r, "stderr")
        assertMatches(r.stderr, #"(?m)^\S*loom\.json:1:\d+: error: "devices" lists device names \(strings\), found "#, in: r, "stderr")
        assertMatches(r.stdout, #"^checked 1 screen × 3 profiles × 1 device: "#, in: r, "only the known device")
        let wrong = try makeShop(devices: #""ipad""#)
        let w = try Host.run(["check", "home", "--project", wrong.path])
        assertContains(w.stderr, #""devices" is a list of device names"#, in: w, "stderr")
        assertMatches(w.stdout, #"× 3 devices: "#, in: w, "the defaults")
    }

    /// Every screen × profile: when `host run` (with the example parameters check used) exits
    /// 1, `host check` reports an error in that screen for that profile.
    func assertCheckAgreesWithRun(_ project: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let c = try Host.run(["check", "--project", project, "--format", "json"])
        let o = try c.jsonObject()
        let errors = (o["diagnostics"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
        let params = o["params"] as? [String: [[String: String]]] ?? [:]
        let profiles = (o["profiles"] as? [Any] ?? []).map { $0 as? String }
        XCTAssertFalse(params.isEmpty, c.transcript, file: file, line: line)
        for (screen, sets) in params {
            for set in sets {
                for profile in profiles {
                    var args = ["run", screen, "--project", project, "--no-graph"]
                    if let profile { args += ["--user", profile] }
                    for (k, v) in set.sorted(by: { $0.key < $1.key }) { args += ["--param", "\(k)=\(v)"] }
                    let r = try Host.run(args)
                    guard r.status == 1 else { continue }
                    let label = profile.map { "'\($0)'" } ?? "no user"
                    let found = errors.contains { e in
                        guard let f = e["file"] as? String, let m = e["message"] as? String else { return false }
                        return (f.hasSuffix(screen) || screen.hasSuffix(f)) && m.contains(label)
                    }
                    XCTAssertTrue(found, "run \(args) fails but check reports no error in \(screen) for \(label)\n\(r.transcript)\n\(c.transcript)", file: file, line: line)
                }
            }
        }
    }

    func testCheckAgreesWithRunOnEveryScreenAndProfile() throws {
        let root = try Host.temporaryFolder("check-agree")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "users.json": #"{"gold": {"tier": "gold"}, "free": {"tier": "free"}}"#,
            "plugins/boom/plugin.lua": """
                return { name = "boom", version = "1.0.0", api = 1, register = function(host)
                  host.rule("picky", function(user) if user.tier == "free" then error("free users break this rule") end return true end)
                  host.single("badge", function(node)
                    if node.params and node.params.id == "13" then error("unlucky order") end
                    return { view = "Badge", props = { text = node.params and node.params.id } }
                  end)
                end }
                """,
            "flows.json": #"{"flows": {"main": {"presentation": "stack", "start": "home", "steps": {"order": {"push": "order"}}, "links": {"app://order/{id}": "order:{id}"}}}}"#,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "gated", "rule": "picky", "meta": {"text": "hi"}},
                  {"type": "button", "id": "b", "meta": {"title": "13"}, "action": "order:13"}
                ]}}
                """,
            "screens/order.json": #"{"screen": "order", "root": {"type": "badge", "id": "badge"}}"#,
        ], under: root)
        let c = try Host.run(["check", "--project", root.path])
        assertExit(c, 1)
        assertContains(c.stderr, "profile 'free'", in: c, "the rule's failure names the profile")
        assertContains(c.stderr, "with id=13", in: c, "the builder's failure names the example")
        try assertCheckAgreesWithRun(root.path)
        try assertCheckAgreesWithRun(Host.moviesProject)
    }
}
