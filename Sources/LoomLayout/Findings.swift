import LoomCore

/// Findings on a laid-out screen (docs/layout.md, "Findings"), on rounded frames, in preorder
/// of the node concerned and, per node, in this order: outside the screen, outside the safe
/// area, overlap, truncated text, small tap target.
/// - outside_screen: a node's frame not inside the screen (every node);
/// - outside_safe_area: a leaf (no laid-out children) of role label, button, image or view,
///   inside the screen but not inside the safe area (containers may extend under the bars);
/// - overlap: two children of a stack, vstack, hstack, collection, navigation or tab bar whose
///   frames intersect with a positive area (a container and the root allow overlap);
/// - truncated: a label or button whose text needs more lines than it has at its width;
/// - small_tap_target: a node with an action narrower or shorter than 44 points.
struct FindingsCheck {
    static let minimumTapTarget = 44.0
    static let tolerance = 1e-9
    let tree: LayoutTree
    let screen: ScreenGeometry

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
        for i in tree.nodes.indices where i < frames.count {
            let f = frames[i]
            let name = { tree.describe(i) }  // only when a finding needs it
            if !inside(f, whole) {
                out.append(LayoutFinding(kind: .outsideScreen, path: tree.nodes[i].path, message: "\(name()) \(f.text) is outside the screen (\(Frame.number(screen.width))×\(Frame.number(screen.height)))", location: tree.nodes[i].location))
            } else if tree.nodes[i].children.isEmpty, [.label, .button, .image, .view].contains(tree.nodes[i].role), !inside(f, safe) {
                out.append(LayoutFinding(kind: .outsideSafeArea, path: tree.nodes[i].path, message: "\(name()) \(f.text) is outside the safe area \(safe.text)", location: tree.nodes[i].location))
            }
            if [.stack, .vstack, .hstack, .collection, .navigation, .tabBar].contains(tree.nodes[i].role) {
                let kids = tree.nodes[i].children
                for a in 0..<kids.count {
                    for b in (a + 1)..<max(kids.count, a + 1) {
                        let fa = frames[kids[a]], fb = frames[kids[b]]
                        let w = min(fa.maxX, fb.maxX) - max(fa.x, fb.x), h = min(fa.maxY, fb.maxY) - max(fa.y, fb.y)
                        if w > FindingsCheck.tolerance && h > FindingsCheck.tolerance {
                            out.append(LayoutFinding(kind: .overlap, path: tree.nodes[kids[b]].path,
                                                     message: "\(tree.describe(kids[b])) \(fb.text) overlaps its sibling \(tree.describe(kids[a])) \(fa.text) in \(name())",
                                                     location: tree.nodes[kids[b]].location))
                        }
                    }
                }
            }
            if let m = tree.nodes[i].metrics, m.truncated {
                out.append(LayoutFinding(kind: .truncated, path: tree.nodes[i].path, message: "the text of \(name()) is truncated: it needs \(m.neededLines) lines and has \(tree.nodes[i].lines ?? 1) at width \(Frame.number(f.width))", location: tree.nodes[i].location))
            }
            if tree.nodes[i].action != nil, f.width < FindingsCheck.minimumTapTarget || f.height < FindingsCheck.minimumTapTarget {
                out.append(LayoutFinding(kind: .smallTapTarget, path: tree.nodes[i].path, message: "\(name()) is tappable but \(Frame.number(f.width))×\(Frame.number(f.height)) points, smaller than 44×44", location: tree.nodes[i].location))
            }
        }
        return out
    }

    func inside(_ f: Frame, _ box: Frame) -> Bool {
        let t = FindingsCheck.tolerance
        return f.x >= box.x - t && f.y >= box.y - t && f.maxX <= box.maxX + t && f.maxY <= box.maxY + t
    }
}
