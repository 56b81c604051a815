import LoomCore
import LoomSolver

/// A node's own `constraints` (docs/layout.md, "Constraints on components"): each string parsed,
/// its named constant overridden from the style's `constraints` object, its targets resolved
/// (parent, prev, next, #id, safe_area), and added part by part. A string that cannot be used
/// (parse error, unknown id, `prev` on a first child, `parent` on the root…) is an error located
/// at the string and left out.
struct OwnConstraints {
    let tree: LayoutTree
    let screen: ScreenGeometry

    struct Unusable: Error { var message: String }

    /// Where a constraint string is: the JSON string's own location (its opening quote).
    static func location(_ node: JSONNode, in component: Component) -> SourceLocation {
        node.position.located(in: component.location.file)
    }

    /// The location of column `column` (1-based) of the string at `node`: the quote's column +
    /// `column` (exact when the string has no escapes before that point).
    static func location(_ node: JSONNode, column: Int, in component: Component) -> SourceLocation {
        var l = location(node, in: component)
        l.column += column
        return l
    }

    mutating func add(_ i: Int, to sys: inout LayoutSystem) {
        let n = tree.nodes[i]
        guard let component = n.origin, let list = component.constraints else { return }
        guard let entries = list.array else { return }  // reported by ConstraintCheck / below
        let overrides = n.style?["constraints"]?.object
        var names = Set<String>()
        for entry in entries {
            guard let text = entry.string else { continue }
            let at = OwnConstraints.location(entry, in: component)
            var parsed: ParsedConstraint
            do {
                parsed = try ConstraintParser.parse(text)
            } catch {
                sys.diagnostics.append(.error("constraint '\(TextEscape.escaped(text))': \(error.message)",
                                              at: OwnConstraints.location(entry, column: error.column, in: component)))
                continue
            }
            if let name = parsed.name {
                names.insert(name)
                if let v = overrides?[name] {
                    if let d = StyleRead.number(v), parsed.overrideConstant(d) {
                    } else {
                        sys.diagnostics.append(.warning("the style's constant for constraint '\(name)' on \(tree.describe(i)) is not used: it is \(v.kindName) and the constraint is \(text)", at: at))
                    }
                }
            }
            let singles = parsed.expanded()
            for single in singles {
                do {
                    let c = try single.solverConstraint { (t, a) throws(Unusable) -> LinearExpression in try resolve(i, t, a) }
                    sys.add(c, ConstraintOrigin(node: i, text: single.description, written: singles.count > 1 ? text : nil, location: at))
                } catch {
                    sys.diagnostics.append(.error("constraint '\(TextEscape.escaped(text))' on \(tree.describe(i)): \(error.message); left out", at: at))
                    break
                }
            }
        }
        if let overrides {
            for key in overrides.keys where !names.contains(key) {
                let from = n.styleOrigins.first { $0.key == "constraints" }?.from
                let hint = DidYouMean.hint(key, among: names.sorted())
                sys.diagnostics.append(.warning("the style overrides constraint '\(key)' but \(tree.describe(i)) has no constraint of that name\(hint)\(from.map { " (style at \($0))" } ?? "")", at: n.location))
            }
        }
    }

    func resolve(_ i: Int, _ target: Target?, _ a: Anchor) throws(Unusable) -> LinearExpression {
        let node: Int
        switch target {
        case nil: node = i
        case .parent?:
            guard let p = tree.nodes[i].parent else { throw Unusable(message: "'parent' on the root (the root fills the screen)") }
            node = p
        case .prev?:
            guard let p = tree.sibling(of: i, offset: -1) else { throw Unusable(message: "'prev' on a first child (no previous sibling is laid out)") }
            node = p
        case .next?:
            guard let p = tree.sibling(of: i, offset: 1) else { throw Unusable(message: "'next' on a last child (no next sibling is laid out)") }
            node = p
        case .safeArea?:
            return Anchors.safeArea(a, screen: screen)
        case .id(let id)?:
            guard let p = tree.byID[id] else {
                throw Unusable(message: "no laid-out node has id '#\(TextEscape.escaped(id))'\(DidYouMean.hint(id, among: tree.ids))")
            }
            node = p
        }
        return Anchors.anchor(node, a, margins: Anchors.margins(tree.nodes[node]))
    }
}
