import LoomCore
import LoomSolver

/// Navigation controllers and tab bars (docs/layout.md, "Navigation and tab bars").
/// Navigation: its children fill it below the bar: left, right and bottom equal the
/// navigation's, top == navigation.top + safe-area top + 44 (the navigation bar).
/// Tab bar: the selected tab (props `selected_index`, default 0) fills it above the bar:
/// left, right and top equal the tab bar's, bottom == tab_bar.bottom − (49 + safe-area bottom).
/// Other tabs are not on screen: not laid out, not reported. A stack there (the screen's
/// top-level stack) is pinned to the top and sides only, as tall as its content (a tab bar's
/// below the top safe-area inset).
struct BarLayout {
    static let navigationBarHeight = 44.0
    static let tabBarHeight = 49.0
    let tree: LayoutTree
    let screen: ScreenGeometry

    func navigation(_ nav: Int, _ made: inout MadeConstraints) {
        let top = screen.safeArea.top + BarLayout.navigationBarHeight
        for c in tree.nodes[nav].children {
            fill(c, in: nav, top: top, stackTop: top, bottom: 0, "navigation", &made)
        }
    }

    func tabBar(_ bar: Int, _ made: inout MadeConstraints) {
        let bottom = BarLayout.tabBarHeight + screen.safeArea.bottom
        for c in tree.nodes[bar].children {
            fill(c, in: bar, top: 0, stackTop: screen.safeArea.top, bottom: bottom, "tab_bar", &made)
        }
    }

    /// A child fills the bar's content area; a stack (the screen's top-level stack,
    /// `TopLevelStack`) is pinned to its top (`stackTop`: a tab bar's stack below the top
    /// safe-area inset) and sides, and is as tall as its content.
    private func fill(_ c: Int, in p: Int, top: Double, stackTop: Double, bottom: Double, _ name: String, _ made: inout MadeConstraints) {
        func e(_ i: Int, _ f: FrameVar) -> LinearExpression { Anchors.expr(i, f) }
        made.add(c, e(c, .left), .equal, e(p, .left), "\(name) child: left == \(name).left")
        made.add(c, e(c, .left) + e(c, .width), .equal, e(p, .left) + e(p, .width), "\(name) child: right == \(name).right")
        if StackLayout.isStack(tree.nodes[c].role) {
            made.add(c, e(c, .top), .equal, e(p, .top) + stackTop, "\(name) stack: top == \(name).top + \(Frame.number(stackTop)) (as tall as its content)")
            return
        }
        made.add(c, e(c, .top), .equal, e(p, .top) + top, "\(name) child: top == \(name).top + \(Frame.number(top))")
        made.add(c, e(c, .top) + e(c, .height), .equal, e(p, .top) + e(p, .height) - bottom,
                 "\(name) child: bottom == \(name).bottom - \(Frame.number(bottom))")
    }
}
