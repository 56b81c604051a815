import LoomCore

/// Findings on a laid-out screen (docs/layout.md, "Findings"), on rounded frames, in preorder
/// of the node concerned and, per node, in this order: outside the screen, outside the safe
/// area, overlap, truncated text, small tap target.
/// - outside_screen: a node's frame not inside the screen (every node but those inside a
///   collection: a list's or carousel's items past its visible edge are reached by scrolling);
/// - outside_safe_area: a leaf (no laid-out children) of role label, button, image or view,
///   inside the screen but not inside the safe area (containers may extend under the bars),
///   outside collections as outside_screen;
/// - overlap: two children of a stack, vstack, hstack, collection, navigation or tab bar whose
///   frames intersect with a positive area (a container and the root allow overlap);
/// - truncated: a label or button whose text needs more lines than it has at its width;
/// - small_tap_target: a node with an action narrower or shorter than 44 points;
/// - low_contrast, missing_label: with `accessibility` only (`AccessibilityCheck`).
struct FindingsCheck {
    static let minimumTapTarget = 44.0
    static let tolerance = 1e-9
    let tree: LayoutTree
    let screen: ScreenGeometry
    var accessibility: AccessibilityCheck?

    init(tree: LayoutTree, screen: ScreenGeometry) {
        self.tree = tree
        self.screen = screen
    }

    func findings(_ result: LayoutResult) -> [LayoutFinding] {
        guard let root = result.root else { return [] }
        var frames: [Frame] = []
        frames.reserveCapacity(tree.nodes.count)
        root.walk { frames.append($0.frame) }
        // `walk` is preorder like the tree's nodes array, so indices agree.
        var out: [LayoutFinding] = []
        let sa = screen.safeArea
        let safe = Frame(x: sa.left, y: sa.top, width: screen.width - sa.left - sa.right, height: screen.height - sa.top - sa.bottom)
        let whole = Frame(x: 0, y: 0, width: screen.width, height: screen.height)
        // Whether a node is inside a collection: its content scrolls. Preorder, so a parent's
        // answer is known before its children's (one pass, no walk up the tree).
        var scrolled = [Bool](repeating: false, count: tree.nodes.count)
        for i in tree.nodes.indices {
            if let p = tree.nodes[i].parent { scrolled[i] = scrolled[p] || tree.nodes[p].role == .collection }
        }
        for i in tree.nodes.indices where i < frames.count {
            let f = frames[i]
            let name = { tree.describe(i) }  // only when a finding needs it
            if scrolled[i] {
                // Reached by scrolling: neither outside the screen nor the safe area.
            } else if !inside(f, whole) {
                out.append(LayoutFinding(kind: .outsideScreen, path: tree.nodes[i].path, message: "\(name()) \(f.text) is outside the screen (\(Frame.number(screen.width))×\(Frame.number(screen.height)))", location: tree.nodes[i].location,
                                         recipe: FindingsCheck.rootStack(above: i, in: tree) ?? .keepInside(f, whole, target: tree.nodes[i].parent == nil ? "safe_area" : "parent")))
            } else if tree.nodes[i].children.isEmpty, [.label, .button, .image, .view].contains(tree.nodes[i].role), !inside(f, safe) {
                out.append(LayoutFinding(kind: .outsideSafeArea, path: tree.nodes[i].path, message: "\(name()) \(f.text) is outside the safe area \(safe.text)", location: tree.nodes[i].location,
                                         recipe: FindingsCheck.rootStack(above: i, in: tree) ?? .keepInside(f, safe, target: "safe_area")))
            }
            if [.stack, .vstack, .hstack, .collection, .navigation, .tabBar].contains(tree.nodes[i].role) {
                let kids = tree.nodes[i].children
                let (pairs, more) = FindingsCheck.overlaps(kids.map { frames[$0] })
                for (a, b) in pairs {
                    let fa = frames[kids[a]], fb = frames[kids[b]]
                    out.append(LayoutFinding(kind: .overlap, path: tree.nodes[kids[b]].path,
                                             message: "\(tree.describe(kids[b])) \(fb.text) overlaps its sibling \(tree.describe(kids[a])) \(fa.text) in \(name())",
                                             location: tree.nodes[kids[b]].location,
                                             recipe: .separate(fb, from: fa, sibling: b == a + 1 ? "prev" : tree.nodes[kids[a]].id.map { "#" + $0 })))
                }
                if more {
                    out.append(LayoutFinding(kind: .overlap, path: tree.nodes[i].path,
                                             message: "more than \(FindingsCheck.maxOverlaps) pairs of \(name())'s children overlap; the first \(FindingsCheck.maxOverlaps) found are reported",
                                             location: tree.nodes[i].location, recipe: nil))
                }
            }
            if let m = tree.nodes[i].metrics, m.truncated {
                out.append(LayoutFinding(kind: .truncated, path: tree.nodes[i].path, message: "the text of \(name()) is truncated: it needs \(m.neededLines) lines and has \(tree.nodes[i].lines ?? 1) at width \(Frame.number(f.width))", location: tree.nodes[i].location,
                                         recipe: .untruncate(needed: m.neededLines, oneLineWidth: FindingsCheck.oneLineWidth(tree.nodes[i]))))
            }
            // With the tolerance: a 44-point row whose rounded edges are 98.667 and 142.667 is
            // 43.99999999999999 points tall in floating point.
            let tap = FindingsCheck.minimumTapTarget - FindingsCheck.tolerance
            if tree.nodes[i].action != nil, f.width < tap || f.height < tap {
                out.append(LayoutFinding(kind: .smallTapTarget, path: tree.nodes[i].path, message: "\(name()) is tappable but \(Frame.number(f.width))×\(Frame.number(f.height)) points, smaller than 44×44", location: tree.nodes[i].location,
                                         recipe: .enlarge(f)))
            }
            if let a = accessibility { a.findings(i, &out) }
        }
        return out
    }

    // MARK: Fixes (what `LayoutFinding.fix` suggests)

    /// A node whose every ancestor is a stack, up to the root: the root stack is pinned to the
    /// safe area's top and sides and is as large as its content, and each stack places its
    /// children from its own edges, so such a node leaves the safe area only when the content
    /// does not fit in it, and no constraint of the node can move it back (it would be
    /// unsatisfiable, or squeeze a sibling). The fix is the content. Nil for any other node.
    static func rootStack(above i: Int, in tree: LayoutTree) -> FixRecipe? {
        let stacks: Set<LayoutRole> = [.stack, .vstack, .hstack]
        var p = tree.nodes[i].parent
        // The root stack itself, taller than the screen (unless its own constraints size it:
        // then the per-edge fix names what to change).
        let sized = tree.nodes[i].origin?.constraints != nil
        var top: Int? = p == nil && stacks.contains(tree.nodes[i].role) && !sized ? i : nil
        while let k = p {
            guard stacks.contains(tree.nodes[k].role) else { return nil }
            top = k
            p = tree.nodes[k].parent
        }
        guard let root = top else { return nil }
        return .rootStack(type: tree.nodes[root].type, id: tree.nodes[root].id)
    }

    static func rootStackText(type: String, id: String?) -> String {
        let name = id.map { "'\($0)'" } ?? "the root"
        return "the root \(type) \(name) is pinned to the safe area's top and sides and is as large as its content, which does not fit in the safe area: "
            + "make the content smaller (fewer or smaller children, less spacing) or move part of it to another screen"
    }

    /// The constraints that keep frame `f` inside `box` (the screen or the safe area), one per
    /// edge it crosses: `right <= parent.right` (the screen: the parent's edges, since the
    /// root fills the screen; the safe area: `safe_area`'s), and `width <= …` when it is wider.
    static func keepInside(_ f: Frame, _ box: Frame, target: String) -> String {
        let t = tolerance
        var add: [String] = []
        if f.width > box.width + t { add.append("width <= \(target).width") }
        if f.height > box.height + t { add.append("height <= \(target).height") }
        if f.x < box.x - t { add.append("left >= \(target).left") }
        if f.maxX > box.maxX + t { add.append("right <= \(target).right") }
        if f.y < box.y - t { add.append("top >= \(target).top") }
        if f.maxY > box.maxY + t { add.append("bottom <= \(target).bottom") }
        return "add " + add.map { "'\($0)'" }.joined(separator: " and ") + " to its constraints"
    }

    /// Two overlapping siblings: the later one placed after the earlier along the axis they
    /// overlap least on.
    /// `sibling`: how a constraint names the earlier one (`prev`, `#id`), nil when it cannot.
    static func separate(_ later: Frame, from earlier: Frame, sibling: String?) -> String {
        let w = min(later.maxX, earlier.maxX) - max(later.x, earlier.x), h = min(later.maxY, earlier.maxY) - max(later.y, earlier.y)
        guard let sibling else { return "give the sibling it overlaps an id and place this one after it ('top >= #ID.bottom')" }
        if w < h { return "add 'left >= \(sibling).right' to its constraints (they overlap by \(Frame.number(w)) points across)" }
        return "add 'top >= \(sibling).bottom' to its constraints (they overlap by \(Frame.number(h)) points down)"
    }

    /// Text that needs more lines: the lines it needs (style key `lines`, 0 for no limit), or
    /// the width that holds it on one line.
    static func untruncate(needed: Int, oneLineWidth w: Double?) -> String {
        var s = "set its style's 'lines' to \(needed) (0: no limit)"
        if let w { s += " or give it 'width >= \(Frame.number(w))' to fit one line" }
        return s
    }

    /// The width that holds a node's text on one line, padding included (nil when unknown).
    static func oneLineWidth(_ n: LNode) -> Double? {
        n.oneLineWidth.map { ($0 + n.padding.left + n.padding.right).rounded(.up) }
    }

    /// A tap target under 44 points: the sizes to add.
    static func enlarge(_ f: Frame) -> String {
        var add: [String] = []
        if f.width < minimumTapTarget { add.append("width >= 44") }
        if f.height < minimumTapTarget { add.append("height >= 44") }
        return "add " + add.map { "'\($0)'" }.joined(separator: " and ") + " to its constraints"
    }

    /// At most this many overlapping pairs are reported for one parent.
    static let maxOverlaps = 1_000

    /// The pairs (a, b), a < b, of `frames` that intersect with a positive area, in the order
    /// a then b; `more` when there were more than `maxOverlaps` (then the pairs are the first
    /// `maxOverlaps` the sweep found, in that order). A sweep along the axis on which the frames
    /// overlap least (the fewest open at once), not every pair: a stack of thousands of children
    /// was millions of comparisons.
    static func overlaps(_ frames: [Frame]) -> (pairs: [(Int, Int)], more: Bool) {
        let n = frames.count
        if n < 2 { return ([], false) }
        let t = tolerance
        // How many intervals are open at once along an axis (starts and ends sorted).
        func crowd(_ start: (Frame) -> Double, _ end: (Frame) -> Double) -> Int {
            var events: [(Double, Int)] = []
            events.reserveCapacity(2 * n)
            for f in frames {
                events.append((start(f), 1))
                events.append((end(f) - t, -1))
            }
            events.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            var open = 0, most = 0
            for e in events {
                open += e.1
                most = max(most, open)
            }
            return most
        }
        let alongX = crowd({ $0.x }, { $0.maxX }) <= crowd({ $0.y }, { $0.maxY })
        func lo(_ f: Frame) -> Double { alongX ? f.x : f.y }
        func hi(_ f: Frame) -> Double { alongX ? f.maxX : f.maxY }
        let order = frames.indices.sorted { lo(frames[$0]) != lo(frames[$1]) ? lo(frames[$0]) < lo(frames[$1]) : $0 < $1 }
        var open: [Int] = []
        var pairs: [(Int, Int)] = []
        var more = false
        sweep: for k in order {
            let f = frames[k]
            // Frames that end before this one starts (by more than the tolerance) cannot meet it.
            open.removeAll { hi(frames[$0]) - lo(f) <= t }
            for j in open {
                let g = frames[j]
                let w = min(f.maxX, g.maxX) - max(f.x, g.x), h = min(f.maxY, g.maxY) - max(f.y, g.y)
                if w > t && h > t {
                    if pairs.count == maxOverlaps {
                        more = true
                        break sweep
                    }
                    pairs.append((min(j, k), max(j, k)))
                }
            }
            open.append(k)
        }
        pairs.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return (pairs, more)
    }

    func inside(_ f: Frame, _ box: Frame) -> Bool {
        let t = FindingsCheck.tolerance
        return f.x >= box.x - t && f.y >= box.y - t && f.maxX <= box.maxX + t && f.maxY <= box.maxY + t
    }
}

/// A finding's fix, kept as what it needs and written only when read (`LayoutFinding.fix`).
enum FixRecipe: Sendable, Hashable {
    case keepInside(Frame, Frame, target: String)
    case rootStack(type: String, id: String?)
    case separate(Frame, from: Frame, sibling: String?)
    case untruncate(needed: Int, oneLineWidth: Double?)
    case enlarge(Frame)

    var text: String {
        switch self {
        case .keepInside(let f, let box, let target): return FindingsCheck.keepInside(f, box, target: target)
        case .rootStack(let type, let id): return FindingsCheck.rootStackText(type: type, id: id)
        case .separate(let later, let earlier, let sibling): return FindingsCheck.separate(later, from: earlier, sibling: sibling)
        case .untruncate(let needed, let w): return FindingsCheck.untruncate(needed: needed, oneLineWidth: w)
        case .enlarge(let f): return FindingsCheck.enlarge(f)
        }
    }
}
