import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// `host render` end to end: a small project whose plugin registers layout roles (docs/render.md).
final class RenderCommandTests: XCTestCase {
    static let plugin = """
        local function build(view)
          return function(node) return { view = view, props = node.meta or {} } end
        end
        return {
          name = "wire", version = "1.0.0", api = 1,
          register = function(host)
            host.rule("is_gold", function(user) return user.tier == "gold" end)
            host.single("w_label", build("Label"), { meta = { text = "string" }, layout_as = "label" })
            host.single("w_button", build("Button"), { meta = { title = "string" }, layout_as = "button" })
            host.single("w_image", build("Image"), { meta = { url = "string" }, layout_as = "image" })
            host.cluster("w_column", build("Column"), { meta = {}, layout_as = "vstack" })
          end,
        }

        """
    static let screen = """
        {
          "screen": "home",
          "root": {
            "type": "w_column", "id": "column",
            "children": [
              {"type": "w_label", "id": "greeting", "meta": {"text": "Welcome <back> & enjoy"}},
              {"type": "w_image", "id": "poster", "meta": {"url": "poster.png"}},
              {"type": "w_button", "id": "upgrade", "meta": {"title": "Go gold"}, "action": "upgrade", "rule": {"NOT": "is_gold"}},
              {"type": "w_button", "id": "lounge", "meta": {"title": "Lounge"}, "action": "lounge", "rule": "is_gold"}
            ]
          }
        }
        """

    func project() throws -> URL {
        let root = try Host.temporaryFolder("render")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "wire"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "plugins/wire/plugin.lua": Self.plugin,
            "screens/home.json": Self.screen,
        ], under: root)
        return root
    }

    func render(_ args: [String], in root: URL, environment: [String: String] = [:], file: StaticString = #filePath,
                line: UInt = #line) throws -> HostResult {
        try Host.run(["render", "home", "--project", root.path] + args, environment: environment, file: file, line: line)
    }

    /// Elements of an SVG (fails the test when it is not well-formed XML).
    func elements(_ svg: String, file: StaticString = #filePath, line: UInt = #line) -> [(name: String, attributes: [String: String])] {
        final class Collector: NSObject, XMLParserDelegate {
            var found: [(name: String, attributes: [String: String])] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) { found.append((name, attributes)) }
        }
        let c = Collector()
        let p = XMLParser(data: Data(svg.utf8))
        p.delegate = c
        XCTAssertTrue(p.parse(), "not well-formed: \(String(describing: p.parserError))", file: file, line: line)
        return c.found
    }

    func testSVGToStdoutAtTheDevicePixelSize() throws {
        let root = try project()
        let r = try render(["--user", "gold"], in: root)
        assertExit(r, 0)
        assertLacks(r.stderr, "error:", in: r, "stderr")
        let els = elements(r.stdout)
        XCTAssertEqual(els.first?.name, "svg")
        XCTAssertEqual(els.first?.attributes["width"], "1179", "iphone-15: 393 points × 3")
        XCTAssertEqual(els.first?.attributes["height"], "2556")
        XCTAssertEqual(els.first?.attributes["viewBox"], "0 0 393 852")
        let ids = els.filter { $0.attributes["class"] == "node" }.compactMap { $0.attributes["data-id"] }
        XCTAssertEqual(ids, ["column", "greeting", "poster", "lounge"])
        assertContains(r.stdout, "Welcome &lt;back&gt; &amp; enjoy", in: r, "stdout")
        XCTAssertEqual(els.filter { $0.attributes["class"] == "badge" }.map { $0.attributes["data-path"] }, ["root/children[3]"])
        XCTAssertTrue(els.contains { $0.name == "text" && $0.attributes["font-family"]?.hasPrefix("'DejaVuSans'") == true })
        assertLacks(r.stdout, "hidden", in: r, "stdout")
        let again = try render(["--user", "gold"], in: root)
        XCTAssertEqual(r.stdoutData, again.stdoutData, "not deterministic")
    }

    func testShowHiddenGhostsWhatRulesHide() throws {
        let r = try render(["--user", "gold", "--show-hidden"], in: try project())
        assertExit(r, 0)
        let ghosts = elements(r.stdout).filter { $0.attributes["class"] == "node hidden" }
        XCTAssertEqual(ghosts.map { $0.attributes["data-id"] }, ["upgrade"])
        XCTAssertEqual(ghosts.first?.attributes["opacity"], "0.35")
    }

    func testPNGHasTheDevicePixelSizeAndInkOnlyInsideFrames() throws {
        guard Host.which("rsvg-convert") != nil else {
            throw XCTSkip("rsvg-convert is not installed (scripts/setup-deps installs librsvg2-bin); host render --format png not checked")
        }
        guard Host.which("python3") != nil else {
            throw XCTSkip("python3 is not installed: scripts/png-mask cannot decode the PNG")
        }
        let root = try project()
        let png = root.appendingPathComponent("home.png")
        let args = ["--user", "free", "--device", "iphone-se-1st", "--no-safe-area"]
        let r = try render(args + ["--format", "png", "-o", png.path], in: root)
        assertExit(r, 0)
        let data = try Data(contentsOf: png)
        let b = [UInt8](data)
        XCTAssertEqual(Array(b.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        func u32(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        XCTAssertEqual([u32(16), u32(20)], [640, 1136], "iphone-se-1st: 320×568 points × 2")

        // The frames the SVG of the same run reports (each node's box, widened by its outline),
        // in pixels with 1 pixel of antialiasing; the root covers the screen and is left out.
        let svg = try render(args, in: root)
        let els = elements(svg.stdout)
        var frames: [(String, Int, Int, Int, Int)] = []
        for (i, e) in els.enumerated() where e.attributes["class"] == "node" && e.attributes["data-path"] != "root" {
            guard let rect = els[(i + 1)...].first(where: { $0.name == "rect" }),
                  let x = Double(rect.attributes["x"]!), let y = Double(rect.attributes["y"]!),
                  let w = Double(rect.attributes["width"]!), let h = Double(rect.attributes["height"]!) else { continue }
            frames.append((e.attributes["data-path"]!, Int(((x - 1) * 2).rounded(.down)) - 1, Int(((y - 1) * 2).rounded(.down)) - 1,
                           Int(((x + w + 1) * 2).rounded(.up)) + 1, Int(((y + h + 1) * 2).rounded(.up)) + 1))
        }
        XCTAssertEqual(frames.map(\.0), ["root/children[0]", "root/children[1]", "root/children[2]"])
        let mask = try Host.runExecutable(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["python3", Host.repoRoot.appendingPathComponent("scripts/png-mask").path, png.path, "#FFFFFF"])
        XCTAssertEqual(mask.status, 0, mask.transcript)
        let out = [UInt8](mask.stdoutData)
        let nl = try XCTUnwrap(out.firstIndex(of: 0x0A))
        XCTAssertEqual(String(decoding: out[..<nl], as: UTF8.self), "640 1136")
        let bits = out[(nl + 1)...]
        XCTAssertEqual(bits.count, 640 * 1136)
        var stray = 0
        var ink = [Int](repeating: 0, count: frames.count)
        for (k, bit) in bits.enumerated() where bit != 0 {
            let (x, y) = (k % 640, k / 640)
            var inside = false
            for (i, f) in frames.enumerated() where x >= f.1 && x < f.3 && y >= f.2 && y < f.4 {
                inside = true
                ink[i] += 1
            }
            if !inside { stray += 1 }
        }
        XCTAssertEqual(stray, 0, "pixels drawn outside every frame")
        for (i, f) in frames.enumerated() { XCTAssertGreaterThan(ink[i], 0, "nothing drawn in \(f.0)") }
    }

    func testPNGWithoutRsvgConvertSaysWhatToInstall() throws {
        let root = try project()
        let empty = root.appendingPathComponent("empty-bin")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let r = try render(["--user", "gold", "--format", "png", "-o", root.appendingPathComponent("x.png").path], in: root,
                           environment: ["PATH": empty.path])
        assertExit(r, 1)
        assertContains(r.stderr, "error: host render --format png needs rsvg-convert (Debian package librsvg2-bin: apt-get install -y librsvg2-bin)", in: r, "stderr")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("x.png").path))
    }

    func testPNGNeedsAnOutputFile() throws {
        let r = try render(["--format", "png"], in: try project())
        assertExit(r, 64)
        assertContains(r.stderr, "--format png writes a binary picture: give -o FILE", in: r, "stderr")
    }

    func testAnUnknownUserIsALocatedErrorAndExit1() throws {
        let r = try render(["--user", "platinum"], in: try project())
        assertExit(r, 1)
        assertMatches(r.stderr, #"users\.json.*error: .*platinum"#, in: r, "stderr")
        XCTAssertEqual(r.stdout, "")
    }

    func testMatrixHasARowPerUserAndAColumnPerDevice() throws {
        let root = try project()
        let r = try render(["--matrix", "--users", "gold,free", "--devices", "iphone-se-1st,ipad"], in: root)
        assertExit(r, 0)
        let els = elements(r.stdout)
        let cells = els.filter { $0.attributes["class"] == "cell" }
        XCTAssertEqual(cells.map { "\($0.attributes["data-row"]!) \($0.attributes["data-column"]!)" },
                       ["gold iphone-se-1st portrait", "gold ipad portrait", "free iphone-se-1st portrait", "free ipad portrait"])
        // Gold sees the lounge button, free the upgrade one, on both devices.
        let ids = els.filter { $0.attributes["class"] == "node" }.compactMap { $0.attributes["data-id"] }
        XCTAssertEqual(ids.filter { $0 == "lounge" }.count, 2)
        XCTAssertEqual(ids.filter { $0 == "upgrade" }.count, 2)
        // 1 point = 2 pixels by default: 24+320+24+768+24 points wide.
        XCTAssertEqual(els.first?.attributes["width"], "2320")
        let bad = try render(["--matrix", "--user", "gold"], in: root)
        assertExit(bad, 64)
        assertContains(bad.stderr, "--matrix takes --users", in: bad, "stderr")
        let unknown = try render(["--matrix", "--devices", "iphone-99"], in: root)
        assertExit(unknown, 64)
        assertContains(unknown.stderr, "iphone-99", in: unknown, "stderr")
    }
}
