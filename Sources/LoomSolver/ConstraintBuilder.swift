// From a parsed constraint to solver constraints: guides expanded into single-attribute
// constraints, then each one's attributes resolved to expressions by the caller's closure.

/// One single-attribute constraint of a parsed one (a guide gives several, `part` 0, 1, …):
/// `attribute relation target.targetAttribute * multiplier + constant`, or
/// `attribute relation constant` when `target` is nil.
public struct SingleConstraint: Equatable, Sendable {
    public var name: String?
    public var part: Int
    public var attribute: Anchor
    public var relation: Relation
    public var target: Target?
    public var targetAttribute: Anchor?
    public var multiplier: Double
    public var constant: Double
    public var priority: Double

    /// `left == parent.left_margin + 8 @ 750` — the single constraint in the language.
    public var description: String {
        var s = "\(attribute) \(relation.rawValue) "
        if let target, let targetAttribute {
            s += "\(target).\(targetAttribute)"
            if multiplier != 1 { s += " * \(format(multiplier))" }
            if constant != 0 { s += constant < 0 ? " - \(format(-constant))" : " + \(format(constant))" }
        } else {
            s += format(constant)
        }
        if priority != 1000 { s += " @ \(format(priority))" }
        return s
    }

    private func format(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
}

extension ParsedConstraint {
    /// The single constraints this one stands for. Guides expand anchor by anchor
    /// (`Guide.anchors`): `sides == parent.side_margins` is `left == parent.left_margin` and
    /// `right == parent.right_margin`; a target without an attribute means the left side's
    /// (`edges == parent` is `edges == parent.edges`); a constant on `sides` / `edges` (or
    /// their margins) is an inset — added on left and top, subtracted on right and bottom — and
    /// on `center` / `size` it applies to both; `size == {w, h}` is `width == w`, `height == h`.
    public func expanded() -> [SingleConstraint] {
        func single(_ part: Int, _ a: Anchor, _ t: Target?, _ ta: Anchor?, _ c: Double) -> SingleConstraint {
            SingleConstraint(name: name, part: part, attribute: a, relation: relation, target: t, targetAttribute: ta,
                             multiplier: t == nil ? 1 : multiplier, constant: c, priority: priority)
        }
        switch (attribute, operand) {
        case (.anchor(let a), .constant(let c)):
            return [single(0, a, nil, nil, c)]
        case (.anchor(let a), .target(let t, let attr)):
            let ta: Anchor = if case .anchor(let x)? = attr { x } else { a }
            return [single(0, a, t, ta, constant)]
        case (.guide(let g), .constant(let c)):
            return g.anchors.enumerated().map { single($0.offset, $0.element, nil, nil, c) }
        case (.guide(let g), .size(let w, let h)):
            return g.anchors.enumerated().map { single($0.offset, $0.element, nil, nil, $0.offset == 0 ? w : h) }
        case (.guide(let g), .target(let t, let attr)):
            let other: Guide = if case .guide(let h)? = attr { h } else { g }
            return zip(g.anchors, other.anchors).enumerated().map { k, pair in
                let flip = g.constantIsInset && (pair.0.kind == .right || pair.0.kind == .bottom || pair.0.kind == .trailing)
                return single(k, pair.0, t, pair.1, flip ? -constant : constant)
            }
        case (.anchor(let a), .size(let w, _)):  // rejected by the parser; kept total
            return [single(0, a, nil, nil, w)]
        }
    }

    /// Replaces the constant (a named constraint's constant overridden from a style): the plain
    /// constant of `height == 44`, else the `+ c` of a target. False for a size `{w, h}`.
    public mutating func overrideConstant(_ value: Double) -> Bool {
        switch operand {
        case .constant: operand = .constant(value)
        case .target: constant = value
        case .size: return false
        }
        return true
    }

    /// The solver constraints for this one, each strength from its priority
    /// (`Strength.forPriority`) and tagged `tag`. `resolve(target, anchor)` gives an anchor's
    /// expression (target nil: the constrained view itself); it may throw (an unknown `#id`).
    public func solverConstraints<E: Error>(tag: Int = -1, resolve: (Target?, Anchor) throws(E) -> LinearExpression) throws(E) -> [Constraint] {
        var out: [Constraint] = []
        for s in expanded() { out.append(try s.solverConstraint(tag: tag, resolve: resolve)) }
        return out
    }
}

extension SingleConstraint {
    /// `resolve(nil, attribute) relation resolve(target, targetAttribute) * multiplier + constant`.
    public func solverConstraint<E: Error>(tag: Int = -1, resolve: (Target?, Anchor) throws(E) -> LinearExpression) throws(E) -> Constraint {
        let lhs = try resolve(nil, attribute)
        var rhs = LinearExpression(constant: constant)
        if let target, let targetAttribute { rhs = try resolve(target, targetAttribute) * multiplier + constant }
        return Constraint(lhs, relation, rhs, strength: Strength.forPriority(priority), tag: tag)
    }
}
