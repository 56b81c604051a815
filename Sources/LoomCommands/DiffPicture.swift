import Foundation
import LoomCore
import LoomDiff
import LoomLayout
import LoomRender
import LoomStyles

/// `host diff --render`: the old and the new screen laid out for one user and device, side by
/// side, each change of the diff outlined on the side it names (docs/diff.md, "Pictures").
public enum DiffPicture {
    /// Which side and colour a change is outlined with: deletions on the old side; insertions
    /// and moves on the new side (a move also on the old side when its id finds the node
    /// there); hard and soft updates on both, as `updated`.
    public static func outlines(_ changes: [TreeChange], old: Side, new: Side) -> (outlines: [DiffOutline], offScreen: Int) {
        var out: [DiffOutline] = []
        var offScreen = 0
        for c in changes {
            var placed: [DiffOutline] = []
            func add(_ kind: DiffOutlineChange, _ side: DiffOutline.Side, path: String, in s: Side) {
                guard let f = s.frame(diffPath: path) else { return }
                placed.append(DiffOutline(change: kind, side: side, id: c.id, path: path, frame: f, detail: c.line))
            }
            switch c.change {
            case .deleted: add(.deleted, .old, path: c.path, in: old)
            case .inserted: add(.inserted, .new, path: c.path, in: new)
            case .moved:
                if let id = c.id, let f = old.frame(id: id) {
                    placed.append(DiffOutline(change: .moved, side: .old, id: id, path: c.path, frame: f, detail: c.line))
                }
                add(.moved, .new, path: c.path, in: new)
            case .hard, .soft:
                add(.updated, .old, path: c.oldPath ?? c.path, in: old)
                add(.updated, .new, path: c.path, in: new)
            }
            if placed.isEmpty { offScreen += 1 }
            out += placed
        }
        return (out, offScreen)
    }

    /// A side's layout and how the diff's paths find its nodes.
    public struct Side {
        public var layout: RenderLayout
        /// The diff's path (`root/children[1]/items[0]`, indices among visible siblings) → the
        /// laid-out node's frame.
        var frames: [String: Frame] = [:]
        var framesByID: [String: Frame] = [:]

        public init(_ layout: RenderLayout) {
            self.layout = layout
            var byPath: [String: Frame] = [:]
            layout.result.root?.walk { n in
                if byPath[n.path] == nil { byPath[n.path] = n.frame }
                if let id = n.id, framesByID[id] == nil { framesByID[id] = n.frame }
            }
            var map: [String: Frame] = [:]
            // The differ numbers each list's visible entries from 0 (TreeDiffer.compareLists);
            // the resolver's paths number the screen as written (hidden siblings included).
            func visit(_ n: ResolvedNode, _ p: String) {
                map[p] = byPath[n.path]
                if let h = n.header, !h.hidden { visit(h, p + "/header") }
                for (i, c) in n.children.filter({ !$0.hidden }).enumerated() { visit(c, "\(p)/children[\(i)]") }
                for (i, item) in (n.items ?? []).filter({ !$0.hidden }).enumerated() {
                    let ip = "\(p)/items[\(i)]"
                    map[ip] = byPath[item.path]
                    for (j, c) in item.children.filter({ !$0.hidden }).enumerated() { visit(c, "\(ip)/children[\(j)]") }
                }
                if let f = n.footer, !f.hidden { visit(f, p + "/footer") }
            }
            if let t = layout.tree { visit(t, "root") }
            frames = map
        }

        func frame(diffPath: String) -> Frame? { frames[diffPath] ?? nil }
        func frame(id: String) -> Frame? { framesByID[id] }
    }

    /// Lays out both sides for `user` on `device` and draws them with the changes of `result`.
    public static func make(old: DiffSide, new: DiffSide, changes: [TreeChange], user: UserSelection, device: DeviceContext?,
                            options: RenderOptions) -> Result<SVGPicture, RenderLayout.Stopped> {
        var sides: [Side] = []
        var diagnostics = Diagnostics()
        for s in [old, new] {
            switch RenderLayout.make(RenderLayout.request(s.file, user: user, device: device, showHidden: false, params: [:]), in: s.ws) {
            case .success(let l):
                diagnostics.append(contentsOf: l.diagnostics.errors)
                sides.append(Side(l))
            case .failure(let stop): return .failure(stop)
            }
        }
        let (outlines, off) = outlines(changes, old: sides[0], new: sides[1])
        let panels = zip([old, new], sides).map { s, side in
            DiffPanel(caption: "\(s.label) · \(side.layout.title)", result: side.layout.result, content: side.layout.content)
        }
        var picture = DiffRenderer(options: options).render(old: panels[0], new: panels[1], outlines: outlines, offScreen: off)
        picture.warnings = diagnostics.items + picture.warnings
        return .success(picture)
    }
}
