// The constraint language's syntax tree (docs/layout.md):
//   [name:] attribute relation (target[.attribute] [* multiplier] [± constant] | constant | {w, h}) [@ priority]

/// A single layout attribute, optionally in its `_margin` form (`left_margin`, `center_x_margin`).
public struct Anchor: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, CaseIterable, Sendable {
        case left, right, top, bottom, leading, trailing, width, height
        case centerX = "center_x", centerY = "center_y"

        public var isHorizontal: Bool { [.left, .right, .leading, .trailing, .width, .centerX].contains(self) }
        public var isDimension: Bool { self == .width || self == .height }
    }
    public var kind: Kind
    public var margin: Bool

    public init(_ kind: Kind, margin: Bool = false) {
        self.kind = kind
        self.margin = margin
    }

    public var description: String { kind.rawValue + (margin ? "_margin" : "") }

    /// Every attribute name: the kinds, and `_margin` forms of all but width and height.
    public static let allNames: [String] = Kind.allCases.map(\.rawValue)
        + Kind.allCases.filter { !$0.isDimension }.map { $0.rawValue + "_margin" }

    public init?(name: String) {
        if let k = Kind(rawValue: name) {
            self.init(k)
        } else if name.hasSuffix("_margin"), let k = Kind(rawValue: String(name.dropLast(7))), !k.isDimension {
            self.init(k, margin: true)
        } else {
            return nil
        }
    }
}

/// Mortar's multi-anchor guides; each stands for several anchors (`Guide.anchors`).
public enum Guide: String, CaseIterable, Sendable {
    case sides, edges, center, size
    case sideMargins = "side_margins", edgeMargins = "edge_margins"

    /// The anchors a guide expands to, in order: sides = left, right; edges = top, left,
    /// bottom, right; center = center_x, center_y; size = width, height; side_margins and
    /// edge_margins the `_margin` forms of sides and edges.
    public var anchors: [Anchor] {
        switch self {
        case .sides: [Anchor(.left), Anchor(.right)]
        case .edges: [Anchor(.top), Anchor(.left), Anchor(.bottom), Anchor(.right)]
        case .center: [Anchor(.centerX), Anchor(.centerY)]
        case .size: [Anchor(.width), Anchor(.height)]
        case .sideMargins: [Anchor(.left, margin: true), Anchor(.right, margin: true)]
        case .edgeMargins: [Anchor(.top, margin: true), Anchor(.left, margin: true), Anchor(.bottom, margin: true), Anchor(.right, margin: true)]
        }
    }

    /// Guides that pair with each other (same anchors, margins or not).
    public var shape: String {
        switch self {
        case .sides, .sideMargins: "sides"
        case .edges, .edgeMargins: "edges"
        case .center: "center"
        case .size: "size"
        }
    }

    /// Whether a constant is an inset: + on left/top, − on right/bottom (sides and edges).
    public var constantIsInset: Bool { shape == "sides" || shape == "edges" }
}

/// What a constraint's left side or a target's attribute names.
public enum AttributeRef: Equatable, Sendable, CustomStringConvertible {
    case anchor(Anchor)
    case guide(Guide)

    public init?(name: String) {
        if let a = Anchor(name: name) { self = .anchor(a) } else if let g = Guide(rawValue: name) { self = .guide(g) } else { return nil }
    }

    public var description: String {
        switch self {
        case .anchor(let a): a.description
        case .guide(let g): g.rawValue
        }
    }
}

/// Whose attribute the right side names.
public enum Target: Equatable, Hashable, Sendable, CustomStringConvertible {
    case parent, prev, next, safeArea
    case id(String)

    public var description: String {
        switch self {
        case .parent: "parent"
        case .prev: "prev"
        case .next: "next"
        case .safeArea: "safe_area"
        case .id(let s): "#" + s
        }
    }
}

/// The right side.
public enum Operand: Equatable, Sendable {
    /// `target[.attribute]`; without an attribute the left side's is meant.
    case target(Target, attribute: AttributeRef?)
    /// A plain constant (`height == 44`).
    case constant(Double)
    /// A size `{w, h}` (`size == {100, 44}`).
    case size(width: Double, height: Double)
}

/// One parsed constraint string, with 1-based columns of its parts.
public struct ParsedConstraint: Equatable, Sendable {
    public var text: String
    public var name: String?
    public var attribute: AttributeRef
    public var attributeColumn: Int
    public var relation: Relation
    public var relationColumn: Int
    public var operand: Operand
    public var operandColumn: Int
    public var multiplier: Double = 1
    public var constant: Double = 0
    /// Auto Layout priority, 1…1000 (1000 = required).
    public var priority: Double = 1000
    public var priorityColumn: Int?
}

/// A parse error: the 1-based column of the offending token and what was expected.
public struct ConstraintParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var column: Int
    public var message: String
    public var description: String { "column \(column): \(message)" }
}
