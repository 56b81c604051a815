import LoomCore
import LoomStyles
import LoomText
import OrderedCollections

/// A rectangle in screen points (origin top left), rounded to the device's pixel grid.
public struct Frame: Sendable, Hashable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// `{x, y, width, height}` (integral values as integers).
    public var json: JSONValue {
        .object(["x": .double(x), "y": .double(y), "width": .double(width), "height": .double(height)])
    }

    /// `@ 16,88 343×44` as the text output prints it.
    public var text: String { "@ \(Frame.number(x)),\(Frame.number(y)) \(Frame.number(width))×\(Frame.number(height))" }

    static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        if let s = thousandths(d) { return s }
        var s = String(format: "%.3f", d)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// `number` without `String(format:)` where that is provably the same: `%.3f` rounds the
    /// exact decimal value of |d|·1000 to an integer; the computed product is within 1e-5 of it
    /// for |d| < 1e7, so when it is farther than 1e-3 from a half, both round the same way.
    /// Nil (use `String(format:)`) otherwise.
    static func thousandths(_ d: Double) -> String? {
        let m = abs(d)
        guard m < 1e7 else { return nil }
        let p = m * 1000
        let f = p - p.rounded(.down)
        guard abs(f - 0.5) > 1e-3 else { return nil }
        let r = Int(p.rounded())
        var s = d < 0 ? "-" : ""
        s += String(r / 1000)
        var frac = r % 1000
        if frac != 0 {
            var digits = 3
            while frac % 10 == 0 { frac /= 10; digits -= 1 }
            let t = String(frac)
            s += "." + String(repeating: "0", count: digits - t.count) + t
        }
        return s
    }
}

/// How a component takes part in layout: declared by its registration (`layout_as`), else
/// from its kind (single → view, cluster → container, wrapper → container, collection →
/// collection).
public enum LayoutRole: String, Sendable, Hashable, CaseIterable {
    case label, button, image, view
    case stack, vstack, hstack, container
    case tabBar = "tab_bar", navigation, collection
    /// The screen's root.
    case screen
    /// An item of a collection.
    case item
}

/// One node laid out: a visible component, a collection's item, or a node a builder created.
public struct LaidOutNode: Sendable {
    /// The node's path (`root/children[1]`, `…/items[2]`, `…/ui[0]` for created nodes).
    public var path: String
    public var type: String
    public var id: String?
    public var view: String
    public var role: LayoutRole
    public var frame: Frame
    /// Measured text (labels, buttons), nil otherwise.
    public var text: TextMetrics?
    /// The node's action (a tappable node).
    public var action: String?
    /// Colours from the resolved style (`background`, `text_color`), as written.
    public var background: String?
    public var textColor: String?
    /// Where the node is written (JSON or Lua).
    public var location: SourceLocation?
    /// Hidden by a rule (laid out only for `host render --show-hidden`).
    public var hidden: Bool
    public var children: [LaidOutNode]

    public init(path: String, type: String, id: String?, view: String, role: LayoutRole, frame: Frame, text: TextMetrics? = nil,
                action: String? = nil, background: String? = nil, textColor: String? = nil, location: SourceLocation? = nil,
                hidden: Bool = false, children: [LaidOutNode] = []) {
        self.path = path
        self.type = type
        self.id = id
        self.view = view
        self.role = role
        self.frame = frame
        self.text = text
        self.action = action
        self.background = background
        self.textColor = textColor
        self.location = location
        self.hidden = hidden
        self.children = children
    }

    /// This node and every node below it, depth first.
    public func walk(_ body: (LaidOutNode) -> Void) {
        body(self)
        for c in children { c.walk(body) }
    }
}

/// A problem the layout found on a laid-out screen.
public struct LayoutFinding: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A visible node (partly) outside the screen.
        case outsideScreen = "outside_screen"
        /// A visible node (partly) outside the safe area.
        case outsideSafeArea = "outside_safe_area"
        /// Siblings that overlap in a container that does not allow it.
        case overlap
        /// Text that needs more lines than it has.
        case truncated
        /// A tappable node smaller than 44×44 points.
        case smallTapTarget = "small_tap_target"
        /// A required constraint that could not be satisfied (it was left out).
        case unsatisfiable
        /// A node whose frame the constraints do not determine.
        case ambiguous
        /// Text whose colour on its background is below WCAG 2.2's contrast minimum
        /// (accessibility checks only).
        case lowContrast = "low_contrast"
        /// An image, or a button without text, with no accessibility label (accessibility
        /// checks only).
        case missingLabel = "missing_label"
    }
    public var kind: Kind
    public var path: String
    public var message: String
    public var location: SourceLocation?
    /// What to change so the finding goes away, written in the constraint language or naming
    /// the style key (`add 'height == 44'`, `set its style's 'lines' to 2 …`); nil when none
    /// can be suggested.
    public var fix: String? {
        get { fixText ?? recipe?.text }
        set { fixText = newValue; recipe = nil }
    }
    /// A fix given as text, or one written only when read (`FixRecipe`: most findings of a big
    /// layout are never printed, and writing their fixes cost the layout bench about 3 %).
    private var fixText: String?
    private var recipe: FixRecipe?

    public init(kind: Kind, path: String, message: String, location: SourceLocation? = nil, fix: String? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.location = location
        self.fixText = fix
    }

    init(kind: Kind, path: String, message: String, location: SourceLocation? = nil, recipe: FixRecipe?) {
        self.kind = kind
        self.path = path
        self.message = message
        self.location = location
        self.recipe = recipe
    }
}

/// A screen laid out for one device and orientation.
public struct LayoutResult: Sendable {
    public var device: Device
    public var orientation: Orientation
    /// The screen in points.
    public var width: Double
    public var height: Double
    public var safeArea: EdgeInsets
    /// The root's laid-out tree (nil when the screen shows nothing).
    public var root: LaidOutNode?
    public var findings: [LayoutFinding]
    public init(device: Device, orientation: Orientation, width: Double, height: Double, safeArea: EdgeInsets,
                root: LaidOutNode?, findings: [LayoutFinding]) {
        self.device = device
        self.orientation = orientation
        self.width = width
        self.height = height
        self.safeArea = safeArea
        self.root = root
        self.findings = findings
    }

    /// The first node (depth first) with this id, else with this path.
    public func node(_ idOrPath: String) -> LaidOutNode? {
        var found: LaidOutNode?
        root?.walk { n in if found == nil, n.id == idOrPath { found = n } }
        if found == nil { root?.walk { n in if found == nil, n.path == idOrPath { found = n } } }
        return found
    }
}

extension LayoutResult {
    /// The layout mirrored for a right-to-left locale: every frame x′ = W − x − w (frames are
    /// in screen points, so this is also the mirror of each frame inside its mirrored parent),
    /// and the safe area's left and right swapped. Widths, heights and y are unchanged, so the
    /// findings (overlap, truncation, sizes) are the same findings.
    public func mirrored() -> LayoutResult {
        var out = self
        let w = width
        func mirror(_ n: LaidOutNode) -> LaidOutNode {
            var n = n
            n.frame.x = w - n.frame.x - n.frame.width
            // -0 would print as "-0": a frame at the screen's edge stays at 0.
            if n.frame.x == 0 { n.frame.x = 0 }
            n.children = n.children.map(mirror)
            return n
        }
        out.root = root.map(mirror)
        out.safeArea.left = safeArea.right
        out.safeArea.right = safeArea.left
        // Findings quote frames as `Frame.text` (`@ x,y w×h`): those are mirrored too, so a
        // message names the frame the output shows. (Fixes name the constraints as written.)
        out.findings = findings.map { f in
            var f = f
            f.message = LayoutResult.mirroringFrames(in: f.message, width: w)
            return f
        }
        return out
    }

    /// `text` with each `@ x,y w×h` frame written in it mirrored in a screen `width` wide.
    static func mirroringFrames(in text: String, width: Double) -> String {
        guard text.contains("@ ") else { return text }
        var out = ""
        var rest = Substring(text)
        while let at = rest.range(of: "@ ") {
            out += rest[..<at.upperBound]
            rest = rest[at.upperBound...]
            // x,y w×h: four numbers; anything else is left as written.
            let end = rest.firstIndex(where: { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "," || $0 == " " || $0 == "×") }) ?? rest.endIndex
            var frame = rest[..<end]
            while frame.last == " " || frame.last == "," { frame = frame.dropLast() }
            let parts = frame.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "×" })
            if parts.count == 4, let x = Double(parts[0]), let y = Double(parts[1]), let w = Double(parts[2]), let h = Double(parts[3]) {
                var mx = width - x - w
                if mx == 0 { mx = 0 }
                out += Frame(x: mx, y: y, width: w, height: h).text.dropFirst(2)
                rest = rest[frame.endIndex...]
            }
        }
        return out + rest
    }
}
