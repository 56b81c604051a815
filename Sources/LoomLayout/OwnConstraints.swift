import LoomCore
import LoomSolver
import LoomStyles

/// A node's own `constraints` (docs/layout.md, "Constraints on components"): each string parsed,
/// its named constant overridden from the style's `constraints` object, its targets resolved
/// (parent, prev, next, #id, safe_area), and added part by part. A string that cannot be used
/// (parse error, unknown id, `prev` on a first child, `parent` on the root…) is an error located
/// at the string and left out.
struct OwnConstraints {
    let tree: LayoutTree
    let screen: ScreenGeometry

    struct Unusable: Error { var message: String }

    /// A string's parse, its single constraints and their descriptions. Each distinct string is
    /// parsed once per pass (a screen repeats a few strings on many nodes); the parse is a pure
    /// function of the text, so the cached value is the one parsing again would give.
    struct Parsed {
        var result: Result<ParsedConstraint, ConstraintParseError>
        var singles: [SingleConstraint] = []
        var texts: [ConstraintText] = []

        init(_ text: String) {
            result = Result { () throws(ConstraintParseError) in try ConstraintParser.parse(text) }
            if case .success(let p) = result { (singles, texts) = Parsed.expand(p) }
        }

        static func expand(_ p: ParsedConstraint) -> ([SingleConstraint], [ConstraintText]) {
            let singles = p.expanded()
            return (singles, singles.map { ConstraintText($0.description) })
        }
    }
    var cache: [String: Parsed] = [:]

    mutating func parse(_ text: String) -> Parsed {
        if let p = cache[text] { return p }
        let p = Parsed(text)
        cache[text] = p
        return p
    }

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
        guard let component = tree.nodes[i].origin, let list = component.constraints else { return }
        guard let entries = list.array else { return }  // reported by ConstraintCheck / below
        let overrides = tree.nodes[i].style?["constraints"]?.object
        var names = Set<String>()
        for entry in entries {
            guard let text = entry.string else { continue }
            let at = OwnConstraints.location(entry, in: component)
            var cached = parse(text)
            var parsed: ParsedConstraint
            switch cached.result {
            case .success(let p): parsed = p
            case .failure(let error):
                sys.diagnostics.append(.error("constraint '\(TextEscape.escaped(text))': \(error.message)",
                                              at: OwnConstraints.location(entry, column: error.column, in: component)))
                continue
            }
            if let name = parsed.name {
                names.insert(name)
                if let v = overrides?[name] {
                    if let d = StyleRead.number(v), parsed.overrideConstant(d) {
                        (cached.singles, cached.texts) = Parsed.expand(parsed)
                    } else {
                        sys.diagnostics.append(.warning("the style's constant for constraint '\(name)' on \(tree.describe(i)) is not used: it is \(v.kindName) and the constraint is \(text)", at: at))
                    }
                }
            }
            let singles = cached.singles
            for (k, single) in singles.enumerated() {
                do {
                    let c = try single.solverConstraint { (t, a) throws(Unusable) -> LinearExpression in try resolve(i, t, a) }
                    sys.add(c, ConstraintOrigin(node: i, text: cached.texts[k], written: singles.count > 1 ? text : nil, location: at), in: tree)
                } catch {
                    sys.diagnostics.append(.error("constraint '\(TextEscape.escaped(text))' on \(tree.describe(i)): \(error.message); left out", at: at))
                    break
                }
            }
        }
        if let overrides {
            for key in overrides.keys where !names.contains(key) {
                let from = tree.nodes[i].styleOrigins.first { $0.key == "constraints" }?.from
                let hint = DidYouMean.hint(key, among: names.sorted())
                sys.diagnostics.append(.warning("the style overrides constraint '\(key)' but \(tree.describe(i)) has no constraint of that name\(hint)\(from.map { " (style at \($0))" } ?? "")", at: tree.nodes[i].location))
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
        return Anchors.anchor(node, a, margins: a.margin ? Anchors.margins(tree.nodes[node].style) : EdgeInsets())
    }
}
