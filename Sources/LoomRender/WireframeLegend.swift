// How each layout role is drawn (docs/render.md, "Legend"), and the colours styles give.
import LoomLayout

/// The look of a box: fill, outline, corner radius.
public struct BoxStyle: Sendable, Hashable {
    /// `#RRGGBB`, or nil for no fill.
    public var fill: String?
    public var stroke: String?
    /// Outline width in points.
    public var strokeWidth: Double
    public var cornerRadius: Double
    /// The colour text is drawn in.
    public var textColor: String
}

/// The legend: one style per role. Screen first, then the roles in `LayoutRole` order.
public enum WireframeLegend {
    public static let screenBackground = "#FFFFFF"
    public static let safeAreaGuide = "#FF2D55"
    public static let badgeFill = "#1C1C1E"
    public static let badgeText = "#FFFFFF"
    public static let findingOutline = "#FF3B30"
    /// A hidden node's (ghost's) opacity and dash pattern.
    public static let ghostOpacity = 0.35
    public static let ghostDash = "4 3"

    public static func style(_ role: LayoutRole) -> BoxStyle {
        switch role {
        case .screen: return BoxStyle(fill: nil, stroke: nil, strokeWidth: 0, cornerRadius: 0, textColor: "#000000")
        case .label: return BoxStyle(fill: nil, stroke: "#C7C7CC", strokeWidth: 0.5, cornerRadius: 0, textColor: "#000000")
        case .button: return BoxStyle(fill: "#E5F0FF", stroke: "#007AFF", strokeWidth: 1, cornerRadius: 6, textColor: "#007AFF")
        case .image: return BoxStyle(fill: "#EFEFF4", stroke: "#8E8E93", strokeWidth: 1, cornerRadius: 0, textColor: "#000000")
        case .view: return BoxStyle(fill: "#F2F2F7", stroke: "#8E8E93", strokeWidth: 0.5, cornerRadius: 0, textColor: "#000000")
        case .stack, .vstack, .hstack:
            return BoxStyle(fill: nil, stroke: "#AF52DE", strokeWidth: 0.5, cornerRadius: 0, textColor: "#000000")
        case .container: return BoxStyle(fill: nil, stroke: "#FF9500", strokeWidth: 0.5, cornerRadius: 0, textColor: "#000000")
        case .navigation, .tabBar:
            return BoxStyle(fill: "#F9F9F9", stroke: "#5856D6", strokeWidth: 1, cornerRadius: 0, textColor: "#000000")
        case .collection: return BoxStyle(fill: nil, stroke: "#30B0C7", strokeWidth: 1, cornerRadius: 0, textColor: "#000000")
        case .item: return BoxStyle(fill: nil, stroke: "#30B0C7", strokeWidth: 0.5, cornerRadius: 2, textColor: "#000000")
        }
    }
}

/// A style colour as SVG wants it: `#RRGGBB` and an opacity.
struct SVGColor: Hashable {
    var rgb: String
    var opacity: Double

    /// `#RRGGBB` or `#AARRGGBB` (alpha first, as styles write it, docs/styles.md), also with a
    /// `0x` prefix (Matrioska's `background_color`); nil for anything else.
    static func parse(_ text: String) -> SVGColor? {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() } else if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
        } else { return nil }
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit) else { return nil }
        let upper = digits.uppercased()
        if upper.count == 6 { return SVGColor(rgb: "#" + upper, opacity: 1) }
        let alpha = Double(Int(upper.prefix(2), radix: 16)!) / 255
        return SVGColor(rgb: "#" + upper.dropFirst(2), opacity: (alpha * 1000).rounded() / 1000)
    }
}
