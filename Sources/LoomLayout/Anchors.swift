import LoomCore
import LoomSolver
import LoomStyles

/// Frame variables and anchors (docs/layout.md, "Variables and anchors"): node `i` owns the
/// variables 4i (left), 4i+1 (top), 4i+2 (width), 4i+3 (height), in screen points.
enum FrameVar: Int, CaseIterable, CustomStringConvertible {
    case left, top, width, height

    /// The case's name (as `\(v)` would print it through reflection, without reflection).
    var description: String {
        switch self {
        case .left: "left"
        case .top: "top"
        case .width: "width"
        case .height: "height"
        }
    }
}

struct Anchors {
    static let defaultMargin = 8.0

    static func variable(_ node: Int, _ v: FrameVar) -> Variable { Variable(index: node * 4 + v.rawValue) }

    static func expr(_ node: Int, _ v: FrameVar) -> LinearExpression { LinearExpression(variable(node, v)) }

    /// The node's layout margins: the style's `layout_margins` insets, else 8 on every side.
    static func margins(_ style: JSONValue?) -> EdgeInsets {
        StyleRead.insets(style?["layout_margins"])
            ?? EdgeInsets(top: defaultMargin, left: defaultMargin, bottom: defaultMargin, right: defaultMargin)
    }

    /// An anchor of node `i`: left = L, right = trailing = L + W, leading = L, width = W,
    /// center_x = L + W/2 (vertically the same with T and H); `_margin` forms move in by the
    /// margins (center_x_margin = L + m.left + (W − m.left − m.right)/2).
    static func anchor(_ i: Int, _ a: Anchor, margins m: EdgeInsets) -> LinearExpression {
        let mm = a.margin ? m : EdgeInsets()
        // Only the expressions the anchor uses are made.
        switch a.kind {
        case .left, .leading: return expr(i, .left) + mm.left
        case .right, .trailing: return expr(i, .left) + expr(i, .width) - mm.right
        case .top: return expr(i, .top) + mm.top
        case .bottom: return expr(i, .top) + expr(i, .height) - mm.bottom
        case .width: return expr(i, .width)
        case .height: return expr(i, .height)
        case .centerX: return expr(i, .left) + expr(i, .width) * 0.5 + (mm.left - mm.right) * 0.5
        case .centerY: return expr(i, .top) + expr(i, .height) * 0.5 + (mm.top - mm.bottom) * 0.5
        }
    }

    /// The safe area's anchors: constants (the screen minus the device's safe-area insets); its
    /// `_margin` forms are the same as the plain ones (a guide has no margins).
    static func safeArea(_ a: Anchor, screen: ScreenGeometry) -> LinearExpression {
        let s = screen.safeArea
        let left = s.left, top = s.top, width = screen.width - s.left - s.right, height = screen.height - s.top - s.bottom
        let v: Double
        switch a.kind {
        case .left, .leading: v = left
        case .right, .trailing: v = left + width
        case .top: v = top
        case .bottom: v = top + height
        case .width: v = width
        case .height: v = height
        case .centerX: v = left + width / 2
        case .centerY: v = top + height / 2
        }
        return LinearExpression(constant: v)
    }
}
