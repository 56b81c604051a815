import Foundation
import XCTest

/// `host style` and `host devices`: values with provenance in text and JSON, located errors
/// (exit 1), usage errors (exit 64), plugin fallbacks.
final class StyleCommandTests: XCTestCase {
    func project() throws -> URL {
        let dir = try Host.temporaryFolder("styles")
        try Host.write([
            "loom.json": #"{"styles": "look"}"#,
            "look/Login.json": ##"{"@imports": ["Shared"], "title": "base", "tint": "#80FF0000"}"##,
            "look/Login-568h~iphone.json": "{\n  \"title\": \"se\"\n}",
            "look/Login~ipad.json": #"{"title": "ipad"}"#,
            "look/Card-traits.json": #"{"[* *]": {"t": "any"}, "[- +]": {"t": "compact regular"}, "[+ +]": {"t": "regular regular"}}"#,
            "look/Cycle.json": #"{"@imports": ["Loop"]}"#,
            "look/Loop.json": #"{"@imports": ["Cycle"]}"#,
            "plugins/kit/plugin.lua": #"return {name = "kit", version = "1.0.0", api = 1, register = function(host) end}"#,
            "plugins/kit/styles/Shared.json": #"{"title": "shared", "pad": {"top": 1, "left": 2, "bottom": 3, "right": 4}}"#,
            "plugins/kit/styles/Login~ipad.json": #"{"title": "plugin ipad"}"#,
        ], under: dir)
        return dir
    }

    func testTextShowsValuesAndProvenance() throws {
        let dir = try project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Host.run(["style", "Login", "--project", dir.path, "--device", "iphone-se-1st"])
        assertExit(r, 0)
        XCTAssertEqual(r.stderr, "", r.transcript)
        assertContains(r.stdout, "Login on iphone-se-1st portrait, compact regular", in: r)
        assertContains(r.stdout, "title = \"se\"    ← \(dir.path)/look/Login-568h~iphone.json:2 (overrode \(dir.path)/plugins/kit/styles/Shared.json:1, \(dir.path)/look/Login.json:1)", in: r)
        assertContains(r.stdout, "pad   = {1, 2, 3, 4}", in: r)
    }

    func testJSONShapesDevicesAndTraits() throws {
        let dir = try project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Host.run(["style", "Login", "--project", dir.path, "--device", "ipad", "--format", "json", "--type", "tint=color"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        let values = try XCTUnwrap(o["values"] as? [String: Any])
        XCTAssertEqual(values["title"] as? String, "ipad", "the project's file beats the plugin's of the same name")
        XCTAssertEqual(values["tint"] as? [String: Double], ["r": 1, "g": 0, "b": 0, "a": 0.502])
        XCTAssertEqual(values["pad"] as? [String: Double], ["top": 1, "left": 2, "bottom": 3, "right": 4])
        XCTAssertEqual(o["traits"] as? [String: String], ["horizontal": "regular", "vertical": "regular"])
        let prov = try XCTUnwrap((o["provenance"] as? [String: Any])?["title"] as? [String: Any])
        XCTAssertEqual(prov["from"] as? String, "\(dir.path)/look/Login~ipad.json:1")
        for (traits, t) in [("compact regular", "compact regular"), ("regular regular", "regular regular"), ("compact compact", "any")] {
            let c = try Host.run(["style", "Card", "--project", dir.path, "--traits", traits, "--format", "json"])
            assertExit(c, 0)
            XCTAssertEqual((try c.jsonObject()["values"] as? [String: Any])?["t"] as? String, t, traits)
        }
    }

    func testStyleErrorsAreLocatedAndExitOne() throws {
        let dir = try project()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Host.run(["style", "Cycle", "--project", dir.path])
        assertExit(c, 1)
        XCTAssertEqual(c.stderrLines, ["\(dir.path)/look/Loop.json:1:15: error: import cycle: Cycle → Loop → Cycle"], c.transcript)
        let m = try Host.run(["style", "Logn", "--project", dir.path])
        assertExit(m, 1)
        assertContains(m.stderr, "did you mean 'Login'?", in: m, "stderr")
        let t = try Host.run(["style", "Login", "--project", dir.path, "--type", "title=integer"])
        assertExit(t, 1)
        assertContains(t.stderr, "look/Login-568h~iphone.json", in: t, "stderr")
    }

    func testUsageErrorsExit64() throws {
        for args in [["--device", "iphone-16"], ["--traits", "compact"], ["--orientation", "sideways"], ["--type", "x=colour"]] {
            let r = try Host.run(["style", "Login"] + args)
            assertExit(r, 64)
        }
        // (Not "iphone-16": it is as close to the newer catalog's "iphone-11", and ties go
        // alphabetically.)
        let r = try Host.run(["style", "Login", "--device", "iphone-15s"])
        assertContains(r.stderr, "did you mean 'iphone-15'?", in: r, "stderr")
    }

    func testDevicesListsTheCatalog() throws {
        let t = try Host.run(["devices"])
        assertExit(t, 0)
        for name in ["iphone-se-1st", "iphone-8", "iphone-8-plus", "iphone-x", "iphone-15", "ipad", "ipad-pro-12.9",
                     "iphone-xr", "iphone-11", "iphone-xs-max", "iphone-11-pro-max"] {
            assertContains(t.stdout, name, in: t)
        }
        assertContains(t.stdout, "* iphone-15", in: t)
        let j = try Host.run(["devices", "--format", "json"])
        assertExit(j, 0)
        let o = try j.jsonObject()
        XCTAssertEqual(o["default"] as? String, "iphone-15")
        let devices = try XCTUnwrap(o["devices"] as? [[String: Any]])
        let se = try XCTUnwrap(devices.first { $0["name"] as? String == "iphone-se-1st" })
        XCTAssertEqual(se["width"] as? Double, 320)
        XCTAssertEqual(se["height"] as? Double, 568)
        let xr = try XCTUnwrap(devices.first { $0["name"] as? String == "iphone-xr" })
        XCTAssertEqual(xr["display_name"] as? String, "iPhone XR")
        XCTAssertEqual(xr["height"] as? Double, 896)
    }
}
