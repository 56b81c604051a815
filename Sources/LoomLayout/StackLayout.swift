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
/// By default (no explicit `"distribution": "fill"` in meta) the stack packs: the last child's
/// end is at most the stack's end (`packs`) and equals it only at priority 1, so a stack made
/// larger than its content gives the room to a child without a size along the axis, or leaves
/// it after its last child, instead of stretching a hugging one (which, with children that hug
/// equally, is ambiguous).
struct StackLayout {
    let tree: LayoutTree
    let stack: Int
    /// Whether the layout defines its stacks' positions (`Definitions`).
    var defining = false

    static func isStack(_ role: LayoutRole) -> Bool { role == .stack || role == .vstack || role == .hstack }

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

    /// A packed stack's wish to end at its last child's end: priority 1, far below content
    /// hugging (250), so a stack made larger than its content gives the room to a child that
    /// has no size along the axis (a view, a container; the one a UIStackView would stretch)
    /// and never stretches a label or button: with none, the room stays after the last child.
    static let packedFillPriority = 1.0

    /// Whether the stack packs its children at their own sizes along its axis (the default):
    /// the last child's end is at most the stack's end (equal only at `packedFillPriority`), so
    /// a stack made larger than its content does not stretch a label or button. Only an
    /// explicit `"distribution": "fill"` in meta (Mortar's builder writes `fill` into props by
    /// default, so props cannot tell) stretches them as UIStackView's fill does
    /// (docs/layout.md, "Stacks").
    var packs: Bool {
        distribution == .fill && tree.nodes[stack].meta?["distribution"]?.string != "fill"
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
        made.add(stack, .width, .equal, constant: 0, priority: 1, "\(name) hugs its content: width == 0")
        made.add(stack, .height, .equal, constant: 0, priority: 1, "\(name) hugs its content: height == 0")
        if kids.isEmpty { return }
        let v = vertical
        let axis = Axis(vertical: v, start: v ? .top : .left, size: v ? .height : .width, name: v ? "vertical" : "horizontal")
        let across = Axis(vertical: !v, start: v ? .left : .top, size: v ? .width : .height, name: "")
        if defining {
            defineAlongAxis(axis, &made)
        } else {
            addAlongAxis(axis, &made)
        }
        let al = alignment
        let texts = acrossTexts(al, across)
        for c in kids { addAcross(c, al, across, texts, &made) }
    }

    struct Axis {
        var vertical: Bool
        var start: FrameVar
        var size: FrameVar
        var name: String
    }

    private func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }

    /// The constraints along the axis, each given to the solver in order (docs/layout.md, "Stacks").
    private func addAlongAxis(_ axis: Axis, _ made: inout MadeConstraints) {
        let kids = tree.nodes[stack].children
        let name = tree.nodes[stack].role.rawValue
        let start = axis.start, size = axis.size
        func end(_ i: Int) -> LinearExpression { e(i, start) + e(i, size) }
        let s = spacing
        let first = kids[0], last = kids[kids.count - 1]
        made.add(first, e(first, start), .equal, e(stack, start), "\(axis.name) \(name): first child's \(start) == stack's \(start)")
        // The same descriptions for every child: written once, not once a child.
        let t = alongTexts(axis)
        for k in kids.indices.dropFirst() {
            let a = kids[k - 1], b = kids[k]
            switch distribution {
            case .fill, .fillEqually:
                made.add(b, e(b, start), .equal, end(a) + s, t.next)
            case .equalSpacing:
                made.add(b, e(b, start), .greaterOrEqual, end(a) + s, t.atLeast)
                if k > 1 {
                    let gap0 = e(kids[1], start) - end(kids[0])
                    made.add(b, e(b, start) - end(a), .equal, gap0, t.equalGap)
                }
            }
            if distribution == .fillEqually {
                made.add(b, e(b, size), .equal, e(first, size), t.equalSize)
            }
        }
        if packs {
            made.add(last, end(last), .lessOrEqual, end(stack), "\(axis.name) \(name): last child's end <= stack's end (packed)")
            made.add(last, end(last), .equal, end(stack), priority: StackLayout.packedFillPriority,
                     "\(axis.name) \(name): last child's end == stack's end (packed: a child without a size takes the room)")
        } else {
            made.add(last, end(last), .equal, end(stack), "\(axis.name) \(name): last child's end == stack's end")
        }
    }

    /// The same constraints in a layout that defines its stacks' positions (docs/layout.md,
    /// "Cost"; `Definitions`): the ones that place a child (first child's start, start ==
    /// previous end + spacing, equal_spacing's equal gaps) are the chain's definitions, recorded
    /// and not given to the solver; the others go to the solver with the chain written out; the
    /// closing constraint is added after every node's own sizes. When a child's start is not
    /// fresh (something mentions it already) the stack is laid out as `addAlongAxis` does.
    private func defineAlongAxis(_ axis: Axis, _ made: inout MadeConstraints) {
        let kids = tree.nodes[stack].children
        let name = tree.nodes[stack].role.rawValue
        let start = axis.start, size = axis.size
        func end(_ i: Int) -> LinearExpression { e(i, start) + e(i, size) }
        let s = spacing
        let first = kids[0], last = kids[kids.count - 1]
        let dist = distribution
        let defines = kids.indices.map { !(dist == .equalSpacing && $0 == 1) }
        let starts = kids.map { Anchors.variable($0, start) }
        guard zip(starts, defines).allSatisfy({ !$1 || made.system.definitions.isFresh($0) }) else {
            return addAlongAxis(axis, &made)
        }
        // The chain first: the constraints below mention its variables.
        let gap = dist == .equalSpacing ? e(kids[1], start) - e(stack, start) - e(first, size) : LinearExpression(constant: s)
        made.system.definitions.add(Definitions.Chain(base: e(stack, start), gap: gap, starts: starts,
                                                      sizes: kids.map { Anchors.variable($0, size) }),
                                    defines: defines)
        made.record(first, starts[0], e(first, start), e(stack, start), "\(axis.name) \(name): first child's \(start) == stack's \(start)")
        let t = alongTexts(axis)
        for k in kids.indices.dropFirst() {
            let a = kids[k - 1], b = kids[k]
            switch dist {
            case .fill, .fillEqually:
                made.record(b, starts[k], e(b, start), end(a) + s, t.next)
            case .equalSpacing:
                made.add(b, e(b, start), .greaterOrEqual, end(a) + s, t.atLeast)
                if k > 1 {
                    let gap0 = e(kids[1], start) - end(kids[0])
                    made.record(b, starts[k], e(b, start) - end(a), gap0, t.equalGap)
                }
            }
            if dist == .fillEqually {
                made.add(b, e(b, size), .equal, e(first, size), t.equalSize)
            }
        }
        if packs {
            made.addLater(last, end(last), .lessOrEqual, end(stack), "\(axis.name) \(name): last child's end <= stack's end (packed)")
            made.addLater(last, end(last), .equal, end(stack), priority: StackLayout.packedFillPriority,
                          "\(axis.name) \(name): last child's end == stack's end (packed: a child without a size takes the room)")
        } else {
            made.addLater(last, end(last), .equal, end(stack), "\(axis.name) \(name): last child's end == stack's end")
        }
    }

    /// A child's constraints across the axis, by alignment. In a layout that defines its
    /// stacks' positions, the one that places the child (its start equal to the stack's, its end
    /// equal to the stack's end, or its centre to the stack's) defines the child's start.
    private func addAcross(_ c: Int, _ al: Alignment, _ across: Axis, _ t: (place: ConstraintText, bound: ConstraintText),
                           _ made: inout MadeConstraints) {
        let cStart = across.start, cSize = across.size
        func cEnd(_ i: Int) -> LinearExpression { e(i, cStart) + e(i, cSize) }
        let x = Anchors.variable(c, cStart)
        func place(_ lhs: LinearExpression, _ rhs: LinearExpression, as definition: LinearExpression, _ text: ConstraintText) {
            if defining {
                made.define(c, x, as: definition, lhs, rhs, text)
            } else {
                made.add(c, lhs, .equal, rhs, text)
            }
        }
        switch al {
        case .fill:
            place(e(c, cStart), e(stack, cStart), as: e(stack, cStart), t.place)
            made.add(c, cEnd(c), .equal, cEnd(stack), t.bound)
        case .leading:
            place(e(c, cStart), e(stack, cStart), as: e(stack, cStart), t.place)
            made.add(c, cEnd(c), .lessOrEqual, cEnd(stack), t.bound)
        case .trailing:
            place(cEnd(c), cEnd(stack), as: cEnd(stack) - e(c, cSize), t.place)
            made.add(c, e(c, cStart), .greaterOrEqual, e(stack, cStart), t.bound)
        case .center:
            place(e(c, cStart) + e(c, cSize) * 0.5, e(stack, cStart) + e(stack, cSize) * 0.5,
                  as: e(stack, cStart) + e(stack, cSize) * 0.5 - e(c, cSize) * 0.5, t.place)
            made.add(c, e(c, cSize), .lessOrEqual, e(stack, cSize), t.bound)
        }
    }

    /// The descriptions of the constraints across the axis, the same for every child: the one
    /// that places it, then the one that bounds it.
    private func acrossTexts(_ al: Alignment, _ across: Axis) -> (place: ConstraintText, bound: ConstraintText) {
        let name = tree.nodes[stack].role.rawValue
        let cStart = across.start, cSize = across.size
        switch al {
        case .fill: return ("\(name) alignment fill: \(cStart) == stack's", "\(name) alignment fill: end == stack's end")
        case .leading: return ("\(name) alignment leading: \(cStart) == stack's", "\(name) alignment leading: end <= stack's end")
        case .trailing: return ("\(name) alignment trailing: end == stack's end", "\(name) alignment trailing: \(cStart) >= stack's")
        case .center: return ("\(name) alignment center: centre == stack's centre", "\(name) alignment center: \(cSize) <= stack's")
        }
    }

    /// The descriptions of the constraints along the axis between children, the same for every
    /// child.
    private func alongTexts(_ axis: Axis) -> (next: ConstraintText, atLeast: ConstraintText, equalGap: ConstraintText, equalSize: ConstraintText) {
        let name = tree.nodes[stack].role.rawValue
        let start = axis.start, size = axis.size
        let sText = Frame.number(spacing)
        return ("\(axis.name) \(name): \(start) == previous child's end + \(sText)",
                "\(axis.name) \(name): \(start) >= previous child's end + \(sText)",
                "\(name) equal_spacing: gap == first gap",
                "\(name) fill_equally: \(size) == first child's \(size)")
    }
}
