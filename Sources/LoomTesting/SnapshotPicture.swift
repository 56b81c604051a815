// `host test --render-failures` (docs/scenarios.md, "Pictures of failing snapshots"): beside
// each `.snap.new` of a failing snapshot that has frames, `NAME.snap.new.svg` shows the recorded
// and the new screen side by side, drawn and outlined as `host diff --render` draws them.
import LoomCommands
import LoomCore
import LoomLayout
import LoomRender
import LoomStyles
import LoomText

/// The before/after picture of a snapshot that does not match, made from the two snapshot
/// texts alone (the recorded `.snap` has no layout but its frames, so both sides are drawn from
/// their snapshot trees: frames, types, props, actions).
enum SnapshotPicture {
    /// The SVG, or nil when a side has no tree or no frames (a snapshot taken without a device).
    static func svg(old: String, new: String, title: String) -> String? {
        guard let a = SnapshotDocument.parse(old), let b = SnapshotDocument.parse(new),
              let ta = a.tree, let tb = b.tree, frame(ta) != nil, frame(tb) != nil else { return nil }
        let measurer: (any TextMeasuring)? = try? ScreenPipeline.textMeasurer().get()
        let before = side(ta, measurer: measurer), after = side(tb, measurer: measurer)
        let outlines = changes(old: before.nodes, new: after.nodes)
        let picture = DiffRenderer(options: RenderOptions(title: title)).render(
            old: DiffPanel(caption: "recorded · \(a.screen)", result: before.result, content: before.content),
            new: DiffPanel(caption: "now · \(b.screen)", result: after.result, content: after.content),
            outlines: outlines, measurer: measurer)
        return picture.errors.isEmpty ? picture.text : nil
    }

    /// A snapshot node's `frame` extra.
    static func frame(_ n: SnapNode) -> Frame? {
        guard let f = n.extras.first(where: { $0.key == "frame" })?.value,
              let x = f["x"]?.double, let y = f["y"]?.double, let w = f["width"]?.double, let h = f["height"]?.double,
              [x, y, w, h].allSatisfy({ $0.isFinite && abs($0) < 1e7 }) else { return nil }
        return Frame(x: x, y: y, width: max(0, w), height: max(0, h))
    }

    /// How a snapshot node is drawn: by its type, as the standard components lay out.
    static func role(_ n: SnapNode, isRoot: Bool) -> LayoutRole {
        if n.isItem { return .item }
        switch n.type {
        case "label", "text": return .label
        case "button": return .button
        case "image": return .image
        case "list", "carousel", "grid", "collection": return .collection
        case "navigation": return .navigation
        case "tab_bar": return .tabBar
        case "stack", "vstack": return .stack
        case "hstack": return .hstack
        default: return n.children.isEmpty ? .view : .container
        }
    }

    /// One node as the picture and the outlines need it.
    struct Placed {
        var key: String
        var path: String
        var id: String?
        var frame: Frame
        /// The snapshot line without the frame: what an update changes.
        var line: String
    }

    struct Side {
        var result: LayoutResult
        var content: ScreenContent
        var nodes: [Placed]
    }

    static func side(_ tree: SnapNode, measurer: (any TextMeasuring)?) -> Side {
        var content = ScreenContent()
        var placed: [Placed] = []
        func text(_ props: JSONValue, _ keys: [String]) -> String? {
            for k in keys { if let s = props[k]?.string, !s.isEmpty { return s } }
            return nil
        }
        func build(_ n: SnapNode, path: String, isRoot: Bool) -> LaidOutNode? {
            guard let f = frame(n) else { return nil }
            let r = role(n, isRoot: isRoot)
            var node = LaidOutNode(path: path, type: n.type, id: n.id, view: n.view, role: r, frame: f, action: n.action)
            if r == .label || r == .button, let t = text(n.props, ["text", "title"]), let m = measurer {
                let font = FontRequest(name: "DejaVuSans", size: r == .button ? 15 : 17)
                node.text = m.measure(t, font: font, maxWidth: f.width, lines: r == .button ? 1 : 0)
            }
            content.entries[path] = ScreenContent.Entry(
                title: text(n.props, ["title", "text", "name"]), subtitle: text(n.props, ["subtitle"]),
                image: text(n.props, ["image", "image_name", "url"]), background: text(n.props, ["background_color"]))
            var line = n
            line.extras.removeAll { $0.key == "frame" }
            line.children = []
            placed.append(Placed(key: n.id.map { "#" + $0 } ?? path, path: path, id: n.id, frame: f,
                                 line: SnapshotDocument(screen: "", user: "", stack: "", tree: line, diagnostics: [], graph: "").text))
            var kids: [LaidOutNode] = []
            var components = 0, items = 0
            for c in n.children {
                let p: String
                if c.role == "header" { p = path + "/header" } else if c.role == "footer" { p = path + "/footer" } else if c.isItem {
                    p = "\(path)/items[\(items)]"
                    items += 1
                } else {
                    p = "\(path)/children[\(components)]"
                    components += 1
                }
                if let k = build(c, path: p, isRoot: false) { kids.append(k) }
            }
            node.children = kids
            return node
        }
        let root = build(tree, path: "root", isRoot: true)
        let size = root?.frame ?? Frame(x: 0, y: 0, width: 0, height: 0)
        // The device whose screen the root fills (the snapshot does not name it); else the default.
        let match = DeviceCatalog.all.first { d in
            let p = d.size(.portrait), l = d.size(.landscape)
            return (p.width == size.width && p.height == size.height) || (l.width == size.width && l.height == size.height)
        }
        let device = match ?? DeviceCatalog.device(named: DeviceCatalog.defaultName)!
        let orientation: Orientation = size.width > size.height ? .landscape : .portrait
        let result = LayoutResult(device: device, orientation: orientation, width: max(1, size.maxX), height: max(1, size.maxY),
                                  safeArea: device.safeAreaInsets(orientation), root: root, findings: [])
        return Side(result: result, content: content, nodes: placed)
    }

    /// The outlines: a node (by id, else by path) only in the recording is deleted, only now is
    /// inserted; one in both whose line changed is updated, whose frame changed is moved.
    static func changes(old: [Placed], new: [Placed]) -> [DiffOutline] {
        var before: [String: Placed] = [:]
        for p in old where before[p.key] == nil { before[p.key] = p }
        var after: [String: Placed] = [:]
        for p in new where after[p.key] == nil { after[p.key] = p }
        var out: [DiffOutline] = []
        for p in old where after[p.key] == nil {
            out.append(DiffOutline(change: .deleted, side: .old, id: p.id, path: p.path, frame: p.frame, detail: "deleted \(p.key)"))
        }
        for p in new {
            guard let o = before[p.key] else {
                out.append(DiffOutline(change: .inserted, side: .new, id: p.id, path: p.path, frame: p.frame, detail: "inserted \(p.key)"))
                continue
            }
            if o.line != p.line {
                out.append(DiffOutline(change: .updated, side: .old, id: o.id, path: o.path, frame: o.frame, detail: "updated \(p.key)"))
                out.append(DiffOutline(change: .updated, side: .new, id: p.id, path: p.path, frame: p.frame, detail: "updated \(p.key)"))
            } else if o.frame != p.frame {
                out.append(DiffOutline(change: .moved, side: .old, id: o.id, path: o.path, frame: o.frame, detail: "moved \(p.key) \(o.frame.text) → \(p.frame.text)"))
                out.append(DiffOutline(change: .moved, side: .new, id: p.id, path: p.path, frame: p.frame, detail: "moved \(p.key) \(o.frame.text) → \(p.frame.text)"))
            }
        }
        return out
    }
}

extension ScenarioFileRunner {
    /// `--render-failures`: the picture beside a failing snapshot's `.snap.new` (only when both
    /// sides have frames; nothing is written otherwise). A picture that cannot be written is a
    /// note, not a second failure: the snapshot's own failure is what the run reports.
    func writeFailurePicture(old: String, new: String, pending: String) {
        guard options.renderFailures else { return }
        let target = pending + ".svg"
        guard let svg = SnapshotPicture.svg(old: old, new: new, title: "snapshot \(pending)") else {
            _ = try? snapshotWriter.delete(target)
            return
        }
        do { try snapshotWriter.write(svg, to: target) } catch {
            note("cannot write \(target): \(error.message)")
            return
        }
        note("wrote \(target)")
    }

    /// A stale picture goes with its `.snap.new`.
    func removeFailurePicture(_ pending: String) {
        _ = try? snapshotWriter.delete(pending + ".svg")
    }
}
