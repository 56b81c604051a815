import LoomCommands
import LoomCore
import LoomLayout
import LoomStyles
import LoomText

// Layout in scenarios (docs/layout.md, "In scenarios"): the current screen laid out for the
// session's device, `s:expect_frame(id, {x=, y=, width=, height=})`, `s:expect_fits(id)` and
// `s:expect_accessible(id)`.

extension ScenarioSession {
    /// The device context frames are computed for: the one `t:open` named, else the default.
    var layoutContext: DeviceContext { device ?? .standard }

    /// The current screen laid out for `layoutContext` (once per navigation entry);
    /// `accessibility`: with the accessibility findings (`s:expect_accessible`), kept apart.
    func layout(accessibility: Bool = false) throws(ScenarioFailure) -> LayoutOutcome {
        let (_, _, r) = try current()
        guard let top = simulator.current else { throw ScenarioFailure("there is no current screen to lay out") }
        let key = ScenarioSession.cacheKey(top) + (accessibility ? "\u{1}a11y" : "")
        if let l = layouts[key] { return l }
        guard let tree = r.tree else {
            throw ScenarioFailure("screen \(screenID) shows nothing for \(userLabel) (its root is hidden): there is nothing to lay out")
        }
        var engine: LayoutEngine
        switch ScreenPipeline.layoutEngine(in: ws) {
        case .success(let e): engine = e
        case .failure(let e): throw ScenarioFailure("cannot lay out screen \(screenID): \(e.message)")
        }
        engine.accessibility = accessibility
        let out = engine.layout(resolved: tree, on: layoutContext, rightToLeft: ScreenPipeline.isRightToLeft(r.user, in: ws))
        layouts[key] = out
        return out
    }
}

extension ScenarioFileRunner {
    /// The laid-out node `x` names (an id, else a path), or a failure saying why there is none.
    func laidOutNode(_ s: ScenarioSession, _ x: String, _ what: String, accessibility: Bool = false) throws(ScenarioFailure) -> (LaidOutNode, LayoutOutcome) {
        let m = try visibleMatch(s, x, what)  // fails as s:expect_prop does when not visible
        let laid = try s.layout(accessibility: accessibility)
        if let n = laid.result.node(m.itemPath ?? m.path) ?? laid.result.node(x) { return (n, laid) }
        throw ScenarioFailure("\(what)('\(x)'): \(m.label) is visible but was not laid out on \(s.layoutContext.summary) (an unselected tab is not on screen)")
    }

    /// `s:expect_frame(id, {x=, y=, width=, height=})`: the keys given are compared, each within
    /// half a device pixel.
    func expectFrame(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) {
        let x = try string(args, 0, "s:expect_frame(id, frame): id")
        guard args.count > 1, case .object(let want) = args[1], !want.isEmpty else {
            throw ScenarioFailure("s:expect_frame(id, frame): frame is a table with any of x, y, width, height (e.g. {x = 16, width = 343})")
        }
        var expected: [(String, Double)] = []
        for (k, v) in want {
            guard ["x", "y", "width", "height"].contains(k) else {
                throw ScenarioFailure("s:expect_frame('\(x)', frame): unknown key '\(k)'\(DidYouMean.hint(k, among: ["x", "y", "width", "height"])); a frame has x, y, width, height")
            }
            guard let d = v.double else { throw ScenarioFailure("s:expect_frame('\(x)', frame): \(k) must be a number, found \(JSONNormal.text(v))") }
            expected.append((k, d))
        }
        let (node, laid) = try laidOutNode(s, x, "s:expect_frame")
        let f = node.frame
        let tolerance = 0.5 / laid.result.device.scale
        var wrong: [String] = []
        for (k, want) in expected.sorted(by: { Self.frameKeyOrder($0.0) < Self.frameKeyOrder($1.0) }) {
            let got = k == "x" ? f.x : k == "y" ? f.y : k == "width" ? f.width : f.height
            if abs(got - want) > tolerance { wrong.append("\(k) \(Self.number(want)) (got \(Self.number(got)))") }
        }
        if !wrong.isEmpty {
            throw ScenarioFailure("expected the frame of '\(x)' (\(node.type)) on \(s.layoutContext.summary) to have \(wrong.joined(separator: ", ")); its frame is \(f.text)")
        }
    }

    /// `s:expect_fits(id)`: the node and everything in it is on screen and in the safe area,
    /// overlaps nothing it must not, has untruncated text and big enough tap targets, and no
    /// constraint of theirs was broken or left their frame undetermined.
    func expectFits(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) {
        let x = try string(args, 0, "s:expect_fits(id): id")
        let (node, laid) = try laidOutNode(s, x, "s:expect_fits")
        let inside = { (path: String) in path == node.path || path.hasPrefix(node.path + "/") }
        let problems = laid.result.findings.filter { inside($0.path) }.map { "  " + $0.line }
        if !problems.isEmpty {
            throw ScenarioFailure("expected '\(x)' (\(node.type)) to fit on \(s.layoutContext.summary) (\(node.frame.text)), but:\n" + problems.joined(separator: "\n"))
        }
    }

    /// `s:expect_accessible(id)`: no low_contrast or missing_label finding (docs/accessibility.md)
    /// concerns the node or a node inside it, and none of its text is truncated, on the
    /// session's device at its text size (`t:open{ text_size = "ax3" }`).
    func expectAccessible(_ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) {
        let x = try string(args, 0, "s:expect_accessible(id): id")
        let (node, laid) = try laidOutNode(s, x, "s:expect_accessible", accessibility: true)
        let inside = { (path: String) in path == node.path || path.hasPrefix(node.path + "/") }
        let kinds: Set<LayoutFinding.Kind> = [.lowContrast, .missingLabel, .truncated]
        let problems = laid.result.findings.filter { kinds.contains($0.kind) && inside($0.path) }.map { "  " + $0.line }
        if !problems.isEmpty {
            throw ScenarioFailure("expected '\(x)' (\(node.type)) to be accessible on \(s.layoutContext.summary), but:\n" + problems.joined(separator: "\n"))
        }
    }

    private static func frameKeyOrder(_ k: String) -> Int { ["x", "y", "width", "height"].firstIndex(of: k) ?? 4 }

    private static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
