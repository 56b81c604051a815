import LoomCore
import LoomSolver

/// Builds one pass's constraint system (docs/layout.md, "Order of constraints"):
/// 1. the root's frame = the screen (required); a root stack's left, top and width = the safe
///    area's, its height from its content (`TopLevelStack`);
/// 2. for each node in preorder: width ≥ 0 and height ≥ 0 (required), the constraints its role
///    makes for its children (stack, navigation, tab bar, collection), its intrinsic size;
/// 3. for each node in preorder: its own `constraints`, string by string, guide parts in order.
/// Then the solver's values are updated. In a layout whose stacks hold more than
/// `Definitions.threshold` children in all, the stacks define their children's positions
/// instead of giving those constraints to the solver (`Definitions`) and add their closing
/// constraints (last child's end == stack's end) after step 2.
struct LayoutSystemBuilder {
    let tree: LayoutTree
    let screen: ScreenGeometry
    /// Stack children (in all) above which the stacks' positions are defined (`Definitions`).
    var definingAbove = Definitions.threshold
    /// The solver's work budget (`LayoutSystem.workLimit`).
    var workLimit = LayoutSystem.workLimit
    /// Rows this long and longer are substituted through a window (`Solver.windowFrom`).
    var windowFrom = Solver.defaultWindowFrom

    init(tree: LayoutTree, screen: ScreenGeometry) {
        self.tree = tree
        self.screen = screen
    }

    func build() -> LayoutSystem {
        guard !tree.nodes.isEmpty else { return LayoutSystem(tree: tree) }
        var made = MadeConstraints(system: LayoutSystem(tree: tree), tree: tree)
        made.system.solver.workLimit = workLimit
        made.system.solver.windowFrom = windowFrom
        var stackChildren = 0
        for n in tree.nodes where StackLayout.isStack(n.role) { stackChildren += n.children.count }
        let defining = stackChildren > definingAbove
        let root = 0
        if TopLevelStack.isRootStack(root, in: tree) {
            // A root stack: the safe area's top and sides, as tall as its content.
            TopLevelStack.pinRoot(root, screen: screen, &made)
        } else {
            made.add(root, .left, .equal, constant: 0, "the root fills the screen: left == 0")
            made.add(root, .top, .equal, constant: 0, "the root fills the screen: top == 0")
            made.add(root, .width, .equal, constant: screen.width, ConstraintText("the root fills the screen: width == ", screen.width))
            made.add(root, .height, .equal, constant: screen.height, ConstraintText("the root fills the screen: height == ", screen.height))
        }
        for i in tree.nodes.indices {
            made.add(i, .width, .greaterOrEqual, constant: 0, "width >= 0")
            made.add(i, .height, .greaterOrEqual, constant: 0, "height >= 0")
            switch tree.nodes[i].role {
            case .stack, .vstack, .hstack: StackLayout(tree: tree, stack: i, defining: defining).add(to: &made)
            case .navigation: BarLayout(tree: tree, screen: screen).navigation(i, &made)
            case .tabBar: BarLayout(tree: tree, screen: screen).tabBar(i, &made)
            case .collection: CollectionLayout(tree: tree, collection: i).add(to: &made)
            default: break
            }
            IntrinsicSizer.addConstraints(i, width: tree.nodes[i].intrinsicWidth, height: tree.nodes[i].intrinsicHeight, &made)
        }
        // Long stacks' closing constraints, once every child's size is in the solver: added at
        // the stack, each would move its stack's positions through every child again.
        for (c, origin) in made.later { made.system.add(c, origin, in: tree) }
        var own = OwnConstraints(tree: tree, screen: screen)
        for i in tree.nodes.indices { own.add(i, to: &made.system) }
        made.system.solve()
        return made.system
    }
}

/// Constraints the layout pass makes (not written by anybody), described by what made them.
struct MadeConstraints {
    var system: LayoutSystem
    let tree: LayoutTree
    /// Constraints to add after step 2 (long stacks' closing constraints), in order.
    var later: [(Constraint, ConstraintOrigin)] = []

    init(system: LayoutSystem, tree: LayoutTree) {
        self.system = system
        self.tree = tree
    }

    mutating func add(_ node: Int, _ v: FrameVar, _ r: Relation, constant: Double, priority: Double = Priority.required,
                      _ text: ConstraintText) {
        add(node, Anchors.expr(node, v), r, LinearExpression(constant: constant), priority: priority, text)
    }

    mutating func add(_ node: Int, _ lhs: LinearExpression, _ r: Relation, _ rhs: LinearExpression,
                      priority: Double = Priority.required, _ text: ConstraintText) {
        let c = Constraint(lhs, r, rhs, strength: Strength.forPriority(priority))
        var text = text
        if priority != Priority.required { text.priority = priority }
        system.add(c, ConstraintOrigin(node: node, text: text, written: nil, location: nil), in: tree)
    }

    /// A required equality stated as `lhs == rhs` that defines the fresh variable `v` as
    /// `definition` (`Definitions`): recorded, not given to the solver. When `v` is not fresh
    /// (something mentions it already), the constraint goes to the solver instead.
    mutating func define(_ node: Int, _ v: Variable, as definition: LinearExpression, _ lhs: LinearExpression,
                         _ rhs: LinearExpression, _ text: ConstraintText) {
        guard system.definitions.isFresh(v) else { return add(node, lhs, .equal, rhs, text) }
        system.definitions.define(v, as: definition)
        record(node, v, lhs, rhs, text)
    }

    /// Records a required equality that defines `v`, which a definition already holds (a chain's).
    mutating func record(_ node: Int, _ v: Variable, _ lhs: LinearExpression, _ rhs: LinearExpression, _ text: ConstraintText) {
        system.record(definition: Constraint(lhs, .equal, rhs), of: v, ConstraintOrigin(node: node, text: text, written: nil, location: nil))
    }

    /// A constraint added after step 2 (see `LayoutSystemBuilder`), required unless given a
    /// priority (a packed stack's `end == stack's end @ 1`).
    mutating func addLater(_ node: Int, _ lhs: LinearExpression, _ r: Relation, _ rhs: LinearExpression,
                           priority: Double = Priority.required, _ text: ConstraintText) {
        var text = text
        if priority != Priority.required { text.priority = priority }
        later.append((Constraint(lhs, r, rhs, strength: Strength.forPriority(priority)), ConstraintOrigin(node: node, text: text, written: nil, location: nil)))
    }
}
