import LoomCore
import LoomStyles
import LoomText
import XCTest

@testable import LoomLayout

/// A deterministic measurer: every character advances 10 points at size 17 (scaled with the
/// size), a line is 20 tall with ascender 16; wraps at spaces (a word wider than the line is
/// broken by characters); `lines` limits the drawn lines.
final class FixedAdvanceMeasurer: TextMeasuring {
    let advance: Double
    let lineHeight: Double
    init(advance: Double = 10, lineHeight: Double = 20) {
        self.advance = advance
        self.lineHeight = lineHeight
    }

    func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines: Int?) -> TextMetrics {
        let k = font.size / 17
        let adv = advance * k, lh = lineHeight * k
        var out: [String] = []
        for hard in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let maxWidth else { out.append(String(hard)); continue }
            let perLine = max(1, Int((maxWidth / adv).rounded(.down)))
            var line = ""
            for word in hard.split(separator: " ") {
                let candidate = line.isEmpty ? String(word) : line + " " + word
                if candidate.count <= perLine { line = candidate; continue }
                if !line.isEmpty { out.append(line) }
                var w = String(word)
                while w.count > perLine { out.append(String(w.prefix(perLine))); w = String(w.dropFirst(perLine)) }
                line = w
            }
            out.append(line)
        }
        let needed = out.count
        let limit = (lines ?? 0) > 0 ? lines! : needed
        let drawn = Array(out.prefix(limit))
        let width = drawn.map { Double($0.count) * adv }.max() ?? 0
        let face = FontFace(requested: font.name, name: font.name, file: "/fixed", isFallback: false)
        return TextMetrics(face: face, lines: drawn, width: width, height: Double(drawn.count) * lh, lineHeight: lh,
                           ascender: 16 * k, neededLines: needed, truncated: needed > limit)
    }
}

final class PassBuilder: ComponentBuilding {
    let view: String
    init(_ view: String) { self.view = view }
    func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
        .success(BuildOutput(view: view, props: request.component.metaValue ?? .object([:])))
    }
}

final class Never: RuleEvaluating {
    func check(args: JSONNode?, file: String) -> [String] { [] }
    func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        .success(false)
    }
}

enum Harness {
    static func factory() throws -> Factory {
        let f = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        let types: [(String, ComponentKind, String?)] = [
            ("label", .single, "label"), ("button", .single, "button"), ("image", .single, "image"), ("view", .single, nil),
            ("vstack", .cluster, "vstack"), ("hstack", .cluster, "hstack"), ("stack", .cluster, "stack"),
            ("container", .cluster, "container"), ("navigation", .wrapper, "navigation"), ("tab_bar", .cluster, "tab_bar"),
            ("list", .collection, "collection"), ("grid", .collection, "collection"), ("carousel", .collection, "collection"),
        ]
        try f.register(RuleRegistration(name: "never", plugin: p, location: at, evaluator: Never()))
        for (t, k, role) in types {
            let r = ComponentRegistration(type: t, kind: k, plugin: p, location: at, openMeta: true, builder: PassBuilder(t))
            r.layoutAs = role
            try f.register(r)
        }
        return f
    }

    /// Resolves `json` (a native screen) for an anonymous user, `styles` giving each component id
    /// its resolved style values.
    static func resolve(_ json: String, styles: [String: JSONValue] = [:], explain: Bool = false, file: String = "s.json") throws -> (ResolvedNode, Factory, Screen) {
        let f = try factory()
        let doc = try JSONReader.parse(Array(json.utf8), file: file)
        let (parsed, d) = ScreenParser.parse(doc, defaultID: "s")
        let screen = try XCTUnwrap(parsed, "\(d.items)")
        let check = ScreenChecker.check(screen, factory: f)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        let user = UserProfile(name: "u", attributes: [:])
        let ctx = ResolutionContext(user: user, screenID: screen.id, explain: explain)
        ctx.styleFor = { c, _, _ in
            guard let id = c.id, let v = styles[id] else { return nil }
            return NodeStyle(names: [id], values: v, line: "", origins: [.init(key: "constraints", from: "Style.json:3", overrode: [])])
        }
        let r = Resolver(factory: f, screen: screen, check: check).resolve(for: user, context: ctx)
        return (try XCTUnwrap(r.tree), f, screen)
    }

    static func layout(_ json: String, device: String = "iphone-15", orientation: Orientation = .portrait,
                       styles: [String: JSONValue] = [:], showHidden: Bool = false, explain: Bool = false,
                       textSize: TextSize = .standard, accessibility: Bool = false, screenBackground: RGBA? = nil) throws -> LayoutOutcome {
        let (root, f, _) = try resolve(json, styles: styles, explain: explain)
        let d = try XCTUnwrap(DeviceCatalog.device(named: device))
        var engine = LayoutEngine(factory: f, measurer: FixedAdvanceMeasurer())
        engine.accessibility = accessibility
        if let screenBackground { engine.screenBackground = screenBackground }
        return engine.layout(root, device: d, orientation: orientation, showHidden: showHidden, textSize: textSize)
    }
}

extension LayoutOutcome {
    func frame(_ idOrPath: String, file: StaticString = #filePath, line: UInt = #line) -> Frame? {
        let f = result.node(idOrPath)?.frame
        if f == nil { XCTFail("no node \(idOrPath)", file: file, line: line) }
        return f
    }
    var messages: [String] { diagnostics.map { "\($0.severity.rawValue): \($0.message)" } }
    func findings(_ kind: LayoutFinding.Kind) -> [LayoutFinding] { result.findings.filter { $0.kind == kind } }
}

func XCTAssertFrame(_ f: Frame?, _ x: Double, _ y: Double, _ w: Double, _ h: Double, file: StaticString = #filePath, line: UInt = #line) {
    guard let f else { return XCTFail("no frame", file: file, line: line) }
    // Expected values to 3 decimals (frames are on a 1/3 or 1/2 point grid).
    let ok = zip([f.x, f.y, f.width, f.height], [x, y, w, h]).allSatisfy { abs($0 - $1) < 1e-3 }
    XCTAssertTrue(ok, "frame \(f.text), expected @ \(x),\(y) \(w)×\(h)", file: file, line: line)
}
