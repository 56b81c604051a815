import LoomCore
import LoomSolver

/// A screen's top-level stack (docs/layout.md, "The root and top-level stacks"): a stack at the
/// root, or the content of a navigation or tab bar. Like a UIStackView pinned to the safe
/// area's top and sides, it is as wide as the safe area (or the bar's content) and as tall as
/// its content: filling the whole screen instead made a vstack of a label and three buttons
/// stretch one of them (ambiguously) to the screen's height, under the status bar.
enum TopLevelStack {
    /// Node `i` is a stack at the root (a stack under a navigation or tab bar is placed by
    /// `BarLayout`).
    static func isRootStack(_ i: Int, in tree: LayoutTree) -> Bool {
        tree.nodes[i].parent == nil && StackLayout.isStack(tree.nodes[i].role)
    }

    /// The root stack's frame: left, top and width those of the safe area (required); no
    /// height, which comes from its content (the stack hugs it).
    static func pinRoot(_ root: Int, screen: ScreenGeometry, _ made: inout MadeConstraints) {
        let sa = screen.safeArea
        let name = made.tree.nodes[root].role.rawValue
        made.add(root, .left, .equal, constant: sa.left, ConstraintText("the root \(name) is pinned to the safe area: left == ", sa.left))
        made.add(root, .top, .equal, constant: sa.top, ConstraintText("the root \(name) is pinned to the safe area: top == ", sa.top))
        let w = screen.width - sa.left - sa.right
        made.add(root, .width, .equal, constant: w, ConstraintText("the root \(name) is pinned to the safe area: width == ", w))
    }

    /// What an ambiguity finding on a stack's child adds to its fix, when the undetermined
    /// values are along the stack's axis: the stack is sized by something other than its
    /// content, and which child takes the difference is not determined.
    static func ambiguityHint(child i: Int, _ which: [FrameVar], _ tree: LayoutTree, stackSize: Double) -> String? {
        guard let p = tree.nodes[i].parent, StackLayout.isStack(tree.nodes[p].role) else { return nil }
        let stack = StackLayout(tree: tree, stack: p)
        let v = stack.vertical
        let along: Set<FrameVar> = v ? [.top, .height] : [.left, .width]
        guard which.contains(where: { along.contains($0) }) else { return nil }
        let size = v ? "height" : "width"
        let sized = "\(Frame.number((stackSize * 2).rounded() / 2))"
        if stack.packs {
            return "\(tree.describe(p)) is \(sized) points \(v ? "tall" : "wide") but its children do not say how much of it this one takes: give it a \(size), or let the stack be as \(v ? "tall" : "wide") as its content (drop the constraint that sets its \(size))"
        }
        return "\(tree.describe(p)) stretches its children to its \(size) of \(sized) points (\"distribution\": \"fill\") and they hug equally, so which one stretches is not determined: give the others a \(size), drop the constraint that makes the stack larger than its content, or drop \"distribution\": \"fill\" (a stack packs its children at their own sizes by default)"
    }
}
