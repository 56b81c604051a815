import LoomCore
import LoomSolver

/// Stacks (Matrioska `stack`, Mortar's `vstack` / `hstack`) as UIStackView arranges them
/// (docs/layout.md, "Stacks"). Along the axis (vertical: top/bottom/height; horizontal:
/// left/right/width), with spacing s:
/// - fill: first.start == stack.start, child[k].start == child[k−1].end + s, last.end == stack.end;
/// - fill_equally: the same and child[k].size == child[0].size;
/// - equal_spacing: first.start == stack.start, last.end == stack.end,
///   child[k].start ≥ child[k−1].end + s and every gap equal to the first one;
/// across the axis by alignment: fill (both edges equal), leading (start edge equal, end ≤),
/// center (centres equal, size ≤ stack's), trailing (end equal, start ≥); all required.
/// The stack hugs its content: width == 0 @ 1 and height == 0 @ 1 (priority 1, weaker than
/// anything written or intrinsic), so an unconstrained stack is as small as its children allow.
struct StackLayout {
    let tree: LayoutTree
    let stack: Int

    enum Distribution: String { case fill, fillEqually = "fill_equally", equalSpacing = "equal_spacing" }
    enum Alignment: String { case fill, leading, center, trailing }

    var vertical: Bool {
        let n = tree.nodes[stack]
        switch n.role {
        case .vstack: return true
        case .hstack: return false
        default:
            let o = n.props["orientation"]?.string ?? n.meta?["orientation"]?.string ?? n.meta?["axis"]?.string ?? "vertical"
            return o != "horizontal"
        }
    }

    /// `spacing` from props (Matrioska's builder normalizes it, default 10), else meta, else 0.
    var spacing: Double {
        let n = tree.nodes[stack]
        return StyleRead.number(n.props["spacing"]) ?? StyleRead.number(n.meta?["spacing"]) ?? 0
    }

    var distribution: Distribution {
        let n = tree.nodes[stack]
        return (n.props["distribution"]?.string ?? n.meta?["distribution"]?.string).flatMap(Distribution.init) ?? .fill
    }

    var alignment: Alignment {
        let n = tree.nodes[stack]
        let raw = n.props["alignment"]?.string ?? n.meta?["alignment"]?.string ?? "fill"
        switch raw {
        case "top": return .leading
        case "bottom": return .trailing
        default: return Alignment(rawValue: raw) ?? .fill
        }
    }

    func add(to made: inout MadeConstraints) {
        let kids = tree.nodes[stack].children
        let name = tree.nodes[stack].role.rawValue
        let v = vertical
        let cStart: FrameVar = v ? .left : .top, cSize: FrameVar = v ? .width : .height
        func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }
        func cEnd(_ i: Int) -> LinearExpression { e(i, cStart) + e(i, cSize) }
        made.add(stack, .width, .equal, constant: 0, priority: 1, "\(name) hugs its content: width == 0")
        made.add(stack, .height, .equal, constant: 0, priority: 1, "\(name) hugs its content: height == 0")
        if kids.isEmpty { return }
        // Along the axis; a long stack defines its children's positions (docs/layout.md, "Cost").
        if kids.count > StackChains.threshold { addLong(to: &made) } else { addAlongAxis(to: &made) }
        for c in kids {
            let al = alignment
            switch al {
            case .fill:
                made.add(c, e(c, cStart), .equal, e(stack, cStart), "\(name) alignment fill: \(cStart) == stack's")
                made.add(c, cEnd(c), .equal, cEnd(stack), "\(name) alignment fill: end == stack's end")
            case .leading:
                made.add(c, e(c, cStart), .equal, e(stack, cStart), "\(name) alignment leading: \(cStart) == stack's")
                made.add(c, cEnd(c), .lessOrEqual, cEnd(stack), "\(name) alignment leading: end <= stack's end")
            case .trailing:
                made.add(c, cEnd(c), .equal, cEnd(stack), "\(name) alignment trailing: end == stack's end")
                made.add(c, e(c, cStart), .greaterOrEqual, e(stack, cStart), "\(name) alignment trailing: \(cStart) >= stack's")
            case .center:
                made.add(c, e(c, cStart) + e(c, cSize) * 0.5, .equal, e(stack, cStart) + e(stack, cSize) * 0.5,
                         "\(name) alignment center: centre == stack's centre")
                made.add(c, e(c, cSize), .lessOrEqual, e(stack, cSize), "\(name) alignment center: \(cSize) <= stack's")
            }
        }
    }

    /// The constraints along the axis, each given to the solver in order (docs/layout.md, "Stacks").
    private func addAlongAxis(to made: inout MadeConstraints) {
        let kids = tree.nodes[stack].children
        let name = tree.nodes[stack].role.rawValue
        let v = vertical
        let start: FrameVar = v ? .top : .left, size: FrameVar = v ? .height : .width
        func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }
        func end(_ i: Int) -> LinearExpression { e(i, start) + e(i, size) }
        let axis = v ? "vertical" : "horizontal"
        let s = spacing
        let sText = Frame.number(s)
        let first = kids[0], last = kids[kids.count - 1]
        made.add(first, e(first, start), .equal, e(stack, start), "\(axis) \(name): first child's \(start) == stack's \(start)")
        for k in kids.indices.dropFirst() {
            let a = kids[k - 1], b = kids[k]
            switch distribution {
            case .fill, .fillEqually:
                made.add(b, e(b, start), .equal, end(a) + s, "\(axis) \(name): \(start) == previous child's end + \(sText)")
            case .equalSpacing:
                made.add(b, e(b, start), .greaterOrEqual, end(a) + s, "\(axis) \(name): \(start) >= previous child's end + \(sText)")
                if k > 1 {
                    let gap0 = e(kids[1], start) - end(kids[0])
                    made.add(b, e(b, start) - end(a), .equal, gap0, "\(name) equal_spacing: gap == first gap")
                }
            }
            if distribution == .fillEqually {
                made.add(b, e(b, size), .equal, e(first, size), "\(name) fill_equally: \(size) == first child's \(size)")
            }
        }
        made.add(last, end(last), .equal, end(stack), "\(axis) \(name): last child's end == stack's end")
    }

    /// The constraints along the axis of a stack of more than `StackChains.threshold` children
    /// (docs/layout.md, "Cost"): the same constraints, but each that places a child (first
    /// child's start, start == previous end + spacing, equal_spacing's equal gaps) and
    /// fill_equally's equal sizes define their variable (StackChains) instead of going to the
    /// solver; equal_spacing's `>=` constraints go to the solver written out; the closing
    /// constraint is added after every node's own sizes.
    private func addLong(to made: inout MadeConstraints) {
        let kids = tree.nodes[stack].children
        let name = tree.nodes[stack].role.rawValue
        let v = vertical
        let start: FrameVar = v ? .top : .left, size: FrameVar = v ? .height : .width
        func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }
        func end(_ i: Int) -> LinearExpression { e(i, start) + e(i, size) }
        let axis = v ? "vertical" : "horizontal"
        let s = spacing
        let sText = Frame.number(s)
        let first = kids[0], last = kids[kids.count - 1]
        let dist = distribution
        // The chain first: the constraints below mention its variables.
        let gap = dist == .equalSpacing ? e(kids[1], start) - e(stack, start) - e(first, size) : LinearExpression(constant: s)
        made.system.chains.add(StackChains.Chain(stack: stack, base: e(stack, start), gap: gap,
                                                 starts: kids.map { Anchors.variable($0, start) },
                                                 sizes: kids.map { Anchors.variable($0, size) }),
                               defined: kids.indices.map { !(dist == .equalSpacing && $0 == 1) })
        if dist == .fillEqually {
            for b in kids.dropFirst() { made.system.chains.alias(Anchors.variable(b, size), to: Anchors.variable(first, size)) }
        }
        made.define(first, e(first, start), .equal, e(stack, start), "\(axis) \(name): first child's \(start) == stack's \(start)")
        for k in kids.indices.dropFirst() {
            let a = kids[k - 1], b = kids[k]
            switch dist {
            case .fill, .fillEqually:
                made.define(b, e(b, start), .equal, end(a) + s, "\(axis) \(name): \(start) == previous child's end + \(sText)")
            case .equalSpacing:
                made.add(b, e(b, start), .greaterOrEqual, end(a) + s, "\(axis) \(name): \(start) >= previous child's end + \(sText)")
                if k > 1 {
                    let gap0 = e(kids[1], start) - end(kids[0])
                    made.define(b, e(b, start) - end(a), .equal, gap0, "\(name) equal_spacing: gap == first gap")
                }
            }
            if dist == .fillEqually {
                made.define(b, e(b, size), .equal, e(first, size), "\(name) fill_equally: \(size) == first child's \(size)")
            }
        }
        made.addLater(last, end(last), .equal, end(stack), "\(axis) \(name): last child's end == stack's end")
    }
}
